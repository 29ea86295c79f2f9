"""transmit_files over real SFTP on loopback against the simulator (CONTRACT 16): uploaded as NAME.part, renamed,
read back, and only then transmitted; each fault mode, and a kill -9 between upload and record, still gets each file
to the bank exactly once."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from django.db import connections

from bank.models import BankFile, BankFileStatus
from events.models import Event
from tests.bank.conftest import command, received_names, remote
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run

pytestmark = pytest.mark.django_db

TRANSMIT_AT = "2026-12-07T15:30:00Z"


def _originated(company, **overrides) -> str:
    bank_txn(company, amount=1500, **overrides)
    bank_txn(company, type="Credit", amount=700, standard_entry_class_code="PPD")
    (path,) = run("originate", "--at", MONDAY_MORNING)["files"]
    return path.rsplit("/", 1)[-1]


def test_a_written_file_is_uploaded_renamed_read_back_and_transmitted_once(bank, company):
    name = _originated(company)
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert (result, error) == ({"transmitted": [name], "failed": []}, None)
    bank_file = BankFile.objects.get()
    assert (bank_file.status, bank_file.attempts, bank_file.last_error) == (BankFileStatus.TRANSMITTED, 1, "")
    assert remote(bank, "to-bank", name) == [name]  # no .part left
    assert received_names(bank) == [name]
    assert bank.received[0]["accepted"] is True
    (event,) = Event.objects.filter(type="ach_file.transmitted")
    assert event.company_id == company.pk
    assert event.data["entries"] == {
        "entryCount": 2,
        "debitCount": 1,
        "debitTotal": 1500,
        "creditCount": 1,
        "creditTotal": 700,
        "prenoteCount": 0,
        "accountVerificationCount": 0,
    }
    again, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert (again, error) == ({"transmitted": [], "failed": []}, None)
    assert received_names(bank) == [name]


@pytest.mark.parametrize("fault", ["drop-upload", "lose-write"])
def test_a_failed_upload_is_reported_and_the_next_run_sends_it_exactly_once(bank, company, fault):
    name = _originated(company)
    bank.arm(fault)
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert result["transmitted"] == [] and [failure["name"] for failure in result["failed"]] == [name]
    assert error is not None
    bank_file = BankFile.objects.get()
    assert (bank_file.status, bank_file.attempts) == (BankFileStatus.PENDING, 1)
    assert bank_file.last_error == result["failed"][0]["error"]
    assert received_names(bank) == []
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert (result, error) == ({"transmitted": [name], "failed": []}, None)
    assert received_names(bank) == [name]
    assert BankFile.objects.get().attempts == 2


def test_a_slow_server_is_waited_for_and_gets_the_file_once(bank, company):
    name = _originated(company)
    bank.arm("slow")
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert (result, error) == ({"transmitted": [name], "failed": []}, None)
    assert received_names(bank) == [name]


def test_a_server_slower_than_the_timeout_fails_the_run_and_the_next_sends_it_once(bank, company, settings):
    name = _originated(company)
    settings.BANK_SFTP_TIMEOUT_SECONDS = 1
    bank.slow_seconds = 1.5
    bank.arm("slow")
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert [failure["name"] for failure in result["failed"]] == [name] and error is not None
    assert "timeout" in result["failed"][0]["error"].lower()
    bank.slow_seconds = 0.2
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert (result, error) == ({"transmitted": [name], "failed": []}, None)
    assert received_names(bank) == [name]


@pytest.mark.django_db(transaction=True)
def test_a_kill_between_upload_and_record_never_sends_the_file_twice(bank, company):
    """transmit_files runs in a forked process; once its file is whole on the bank's server (renamed into place),
    and while it waits for the (slow) read-back, it is killed with SIGKILL. The next run finds the file there,
    reads it back and records it: the bank received it once."""
    name = _originated(company)
    bank.arm("slow")
    connections.close_all()  # the child opens its own
    child = os.fork()
    if child == 0:  # pragma: no cover - the killed process
        try:
            command("transmit_files", "--at", TRANSMIT_AT)
        finally:
            os._exit(0)
    landed = Path(bank.root, "to-bank", name)
    deadline = time.monotonic() + 30
    while not landed.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    os.kill(child, signal.SIGKILL)
    _, status = os.waitpid(child, 0)
    assert os.WIFSIGNALED(status) and landed.exists()
    assert received_names(bank) == [name]
    # Never recorded (on SQLite's in-memory test database the child's writes stay in the child).
    assert not BankFile.objects.filter(status=BankFileStatus.TRANSMITTED).exists()
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert (result, error) == ({"transmitted": [name], "failed": []}, None)
    assert received_names(bank) == [name]
    assert remote(bank, "to-bank", name) == [name]
