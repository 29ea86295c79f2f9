"""The bank connection's settings (CONTRACT 16): without them the commands say so in one line, exit 1 and touch
nothing; the server's host key is pinned, and an unknown or changed one is refused with one clear line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest

from bank.models import BankFile, BankFileStatus
from bank.simulator import bank_in_thread
from tests.bank.conftest import command, received_names
from tests.bank.test_transmit import TRANSMIT_AT, _originated
from vault.env import env_str

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["transmit_files", "fetch_bank_files"])
def test_without_a_bank_url_the_command_says_so_in_one_line_and_exits_1(name, tmp_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("BANK_")}
    env.update(DEBUG="1", VAR_DIR=str(tmp_path), DATABASE_URL=f"sqlite:///{tmp_path}/never-made.sqlite3")
    finished = subprocess.run(  # noqa: S603 - fixed arguments
        [sys.executable, "manage.py", name], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert finished.returncode == 1
    assert finished.stdout == ""
    (line,) = finished.stderr.strip().splitlines()
    assert line.startswith("CommandError: BANK_SFTP_URL is not set")
    assert not Path(tmp_path, "never-made.sqlite3").exists()  # not even the database was opened


def test_without_a_pinned_host_key_nothing_is_recorded_or_sent(bank, company, settings):
    _originated(company)
    settings.BANK_SFTP_HOST_KEY = None
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    assert result == {} and error.startswith("BANK_SFTP_HOST_KEY is not set")
    assert not BankFile.objects.exists()
    assert received_names(bank) == []


def test_a_changed_host_key_is_refused_in_one_line_and_the_file_stays_pending(bank, company, settings):
    name = _originated(company)
    other_key = asyncssh.generate_private_key("ssh-ed25519").export_public_key("openssh").decode().strip()
    settings.BANK_SFTP_HOST_KEY = other_key
    result, error = command("transmit_files", "--at", TRANSMIT_AT)
    (failure,) = result["failed"]
    assert failure["name"] == name and error is not None
    assert "its host key is ssh-ed25519 SHA256:" in failure["error"]
    assert "not the pinned BANK_SFTP_HOST_KEY" in failure["error"] and "\n" not in failure["error"]
    bank_file = BankFile.objects.get()
    assert (bank_file.status, bank_file.last_error) == (BankFileStatus.PENDING, failure["error"])
    assert received_names(bank) == []


def test_a_key_of_another_type_is_refused_too(bank, company, settings):
    _originated(company)
    settings.BANK_SFTP_HOST_KEY = (
        asyncssh.generate_private_key("ecdsa-sha2-nistp256").export_public_key("openssh").decode().strip()
    )
    result, _error = command("transmit_files", "--at", TRANSMIT_AT)
    assert "not the pinned BANK_SFTP_HOST_KEY" in result["failed"][0]["error"]
    assert received_names(bank) == []


def test_a_wrong_password_is_refused(bank, company, settings):
    _originated(company)
    settings.BANK_SFTP_PASSWORD = "not-the-password"
    result, _error = command("transmit_files", "--at", TRANSMIT_AT)
    assert "Authentication failed" in result["failed"][0]["error"]
    assert received_names(bank) == []


def test_the_password_is_read_from_a_file(tmp_path, monkeypatch):
    secret = tmp_path / "password"
    secret.write_text("from-a-file\n")
    monkeypatch.delenv("BANK_SFTP_PASSWORD", raising=False)
    monkeypatch.setenv("BANK_SFTP_PASSWORD_FILE", str(secret))
    assert env_str("BANK_SFTP_PASSWORD") == "from-a-file"


def test_an_ssh_rsa_host_key_is_pinned_as_the_others(company, settings, tmp_path, monday_early):
    """Security review 2026-12-07 L5: a bank whose server has only an RSA host key (`ssh-rsa AAAA...` as
    ssh-keyscan shows it) is reached, its key compared as any other."""
    rsa = asyncssh.generate_private_key("ssh-rsa", key_size=2048)
    with bank_in_thread(tmp_path / "rsa-bank", password="pw", key=rsa) as running:
        assert running.host_key.startswith("ssh-rsa ")
        settings.BANK_SFTP_URL, settings.BANK_SFTP_PASSWORD = running.url(), "pw"
        settings.BANK_SFTP_KEY_FILE, settings.BANK_SFTP_HOST_KEY = None, running.host_key
        name = _originated(company)
        assert command("transmit_files", "--at", TRANSMIT_AT) == ({"transmitted": [name], "failed": []}, None)
        other = asyncssh.generate_private_key("ssh-rsa", key_size=2048).export_public_key("openssh").decode()
        settings.BANK_SFTP_HOST_KEY = other.strip()
        refused, error = command("fetch_bank_files", "--at", TRANSMIT_AT)
        assert error.startswith("refused 127.0.0.1:") and "not the pinned BANK_SFTP_HOST_KEY (ssh-rsa SHA256:" in error


def test_a_connection_dropped_during_login_is_not_called_a_wrong_password(bank, company, monday_early):
    """Reliability review 2026-12-07, the operator's messages: paramiko says 'Authentication failed' when the
    connection drops during login; the command says the connection dropped, in one line."""
    bank.drops_logins = True

    result, error = command("fetch_bank_files", "--at", TRANSMIT_AT)

    assert "the connection dropped (or timed out) during login" in error
    assert "refused user" not in error and "\n" not in error
