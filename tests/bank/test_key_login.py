"""Our login to the bank by key (CONTRACT 16, BANK_SFTP_KEY_FILE), over real SFTP on loopback: the simulator lists the
client keys it accepts, as a bank does; `transmit_files` logs in with our private key, and a key the bank does not
list is refused in one line naming the key's fingerprint, the command exiting 1 with the file still pending."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import execute_from_command_line
from django.db import connections

from bank.models import BankFile, BankFileStatus
from tests.bank.conftest import command, received_names
from tests.bank.test_transmit import TRANSMIT_AT, _originated

pytestmark = pytest.mark.django_db


def key_pair(folder: Path, name: str) -> tuple[Path, str]:
    """(a private key file in OpenSSH format, 0600, as ssh-keygen writes it; its public line)."""
    private = Ed25519PrivateKey.generate()
    path = folder / name
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(
            private.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption()
            )
        )
    public = private.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return path, f"{public.decode()} vault@test"


@pytest.fixture
def by_key(bank, settings, tmp_path):
    """Our key pair, the bank told of its public half, and the connection logging in with it (no password)."""
    path, public = key_pair(tmp_path, "bank_sftp_key")
    bank.client_keys = [public]
    settings.BANK_SFTP_PASSWORD = None
    settings.BANK_SFTP_KEY_FILE = str(path)
    return public


def test_transmit_files_logs_in_with_our_private_key(bank, by_key, company):
    name = _originated(company)

    result, error = command("transmit_files", "--at", TRANSMIT_AT)

    assert (result, error) == ({"transmitted": [name], "failed": []}, None)
    assert received_names(bank) == [name]
    assert BankFile.objects.get().status == BankFileStatus.TRANSMITTED


def test_the_simulator_refuses_the_password_when_only_keys_are_wrong(bank, by_key, company, settings, tmp_path):
    """The simulator checks the key itself, not any key: another key of ours is refused."""
    _originated(company)
    other, _public = key_pair(tmp_path, "not_the_banks")
    settings.BANK_SFTP_KEY_FILE = str(other)

    result, error = command("transmit_files", "--at", TRANSMIT_AT)

    (failure,) = result["failed"]
    assert "Authentication failed" in failure["error"] and "\n" not in failure["error"]
    assert "the key in BANK_SFTP_KEY_FILE (ssh-ed25519 SHA256:" in failure["error"]
    assert error is not None and received_names(bank) == []
    bank_file = BankFile.objects.get()
    assert (bank_file.status, bank_file.last_error) == (BankFileStatus.PENDING, failure["error"])


@pytest.mark.django_db(transaction=True)
def test_a_key_the_bank_does_not_list_exits_1_with_one_line(bank, by_key, company, settings, tmp_path):
    """manage.py itself, in a forked process: stdout the JSON, stderr one line, exit status 1."""
    _originated(company)
    bank.client_keys = [key_pair(tmp_path, "someone_elses")[1]]
    connections.close_all()  # the child opens its own
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's exit status is the assertion
        status = 2
        try:
            with out.open("w") as sys.stdout, err.open("w") as sys.stderr:
                execute_from_command_line(["manage.py", "transmit_files", "--at", TRANSMIT_AT])
            status = 0
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 2
        finally:
            os._exit(status)
    _, status = os.waitpid(child, 0)

    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1
    # stderr: the log's lines (each one line, the refusal among them), then the command's one line; no traceback.
    logged = err.read_text().strip().splitlines()
    assert logged[-1] == "CommandError: 1 file(s) not transmitted; the next run tries them again"
    assert [line for line in logged if "Authentication failed" in line and "BANK_SFTP_KEY_FILE (ssh-ed25519" in line]
    assert "Traceback" not in err.read_text()
    (failure,) = json.loads(out.read_text())["failed"]
    assert "Authentication failed" in failure["error"]
    assert received_names(bank) == []
