"""transmit_files over real SFTP on loopback against the simulator (CONTRACT 16): uploaded as NAME.part, renamed,
read back, and only then transmitted; each fault mode, and a kill -9 between upload and record, still gets each file
to the bank exactly once."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from django.db import connection, connections

from bank.models import BankFile, BankFileStatus
from bank.transmit import TRANSMIT_LOCK_KEY
from events.models import Event
from tests import factories
from tests.bank.conftest import command, received_names, remote
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from vault.threads import LockLost, serialized

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


def test_a_file_renamed_into_place_then_taken_away_by_the_bank_is_never_sent_twice(bank, company, monday_early):
    """Reliability review 2026-12-07 B4: a bank that moves each file out of its drop box once it took it, and a run
    that never recorded the file (the connection died after the rename). The next run does not find the file
    there, and does not send it again: it says the bank may have it; the bank's acknowledgement then records it."""
    name = _originated(company)
    bank.takes_files_away = True
    bank.arm("drop-after-rename")
    first, first_error = command("transmit_files", "--at", TRANSMIT_AT)
    assert first["transmitted"] == [] and first_error is not None
    assert BankFile.objects.get().status == BankFileStatus.PENDING

    again, error = command("transmit_files", "--at", TRANSMIT_AT)

    (failed,) = again["failed"]
    assert failed["error"].startswith("MaybeAtBank: an earlier run renamed it into place on the bank's server")
    assert "not sent again; ask the bank whether it has it" in failed["error"]
    assert received_names(bank) == [name]
    fetched, fetch_error = command("fetch_bank_files", "--at", "2026-12-07T15:45:00Z")
    assert (fetched["acknowledged"], fetch_error) == (1, None)
    assert BankFile.objects.get().status == BankFileStatus.ACKNOWLEDGED
    assert command("transmit_files", "--at", TRANSMIT_AT) == ({"transmitted": [], "failed": []}, None)
    assert received_names(bank) == [name]


def test_files_written_without_a_connection_go_only_at_an_operators_word(bank, company, settings, client, monday_early):
    """ACH review 2026-12-07 H4: files written while no connection was set (carried by hand) are `outside` when the
    connection is set: the first transmit_files sends none of them; an operator may send one from the admin."""
    url, settings.BANK_SFTP_URL = settings.BANK_SFTP_URL, None
    name = _originated(company)
    settings.BANK_SFTP_URL = url

    assert command("transmit_files", "--at", TRANSMIT_AT) == ({"transmitted": [], "failed": []}, None)

    outside = BankFile.objects.get()
    assert outside.status == BankFileStatus.OUTSIDE and received_names(bank) == []
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    client.post("/admin/bank/bankfile/", {"action": "send_outside", "_selected_action": [outside.pk]})
    assert command("transmit_files", "--at", TRANSMIT_AT) == ({"transmitted": [name], "failed": []}, None)
    assert received_names(bank) == [name]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_run_whose_lock_died_with_the_database_connection_stops(monday_early):
    """Reliability review 2026-12-07 R1: the lock of one run at a time dies with its connection (a database
    restart); the run checks it before each upload and before the record, and stops rather than work beside the
    next run, which takes the lock."""
    with serialized(TRANSMIT_LOCK_KEY) as lock:
        lock.check()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = %s",
                [TRANSMIT_LOCK_KEY & 0xFFFFFFFF],
            )
        with pytest.raises(LockLost, match="the database connection holding this run's lock was lost"):
            lock.check()
        with serialized(TRANSMIT_LOCK_KEY) as next_run:  # the next run is not kept waiting
            next_run.check()


def test_a_file_the_bank_takes_away_before_the_read_back_is_not_sent_again(bank, company, monday_early):
    name = _originated(company)
    bank.takes_files_away = True

    first, error = command("transmit_files", "--at", TRANSMIT_AT)
    again, _error = command("transmit_files", "--at", TRANSMIT_AT)

    assert first["failed"][0]["error"].startswith("MaybeAtBank: renamed into place on the bank's server and gone")
    assert again["failed"][0]["error"].startswith("MaybeAtBank: an earlier run renamed it into place")
    assert received_names(bank) == [name]
    assert command("fetch_bank_files", "--at", "2026-12-07T15:45:00Z")[0]["acknowledged"] == 1
    assert BankFile.objects.get().status == BankFileStatus.ACKNOWLEDGED
