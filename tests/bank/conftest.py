"""One bank simulator per test module (bank/simulator.py, on a loopback port, its event loop in a thread), and the
settings that point the bank commands at it. A test arms a fault for the next upload with `bank.arm(...)`."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from bank.simulator import FROM_BANK, JOURNAL, TO_BANK, bank_in_thread

PASSWORD = "simulated-bank-password"
SLOW_SECONDS = 0.2


@pytest.fixture(scope="module")
def running_bank(tmp_path_factory):
    root = tmp_path_factory.mktemp("bank")
    with bank_in_thread(root, password=PASSWORD, slow_seconds=SLOW_SECONDS) as running:
        yield running


@pytest.fixture
def bank(running_bank, settings, tmp_path):
    """The module's simulator, emptied for this test, and the settings of a connection to it."""
    simulated = running_bank.bank
    for folder in (TO_BANK, FROM_BANK):
        shutil.rmtree(simulated.root / folder)
        (simulated.root / folder).mkdir()
    (simulated.root / JOURNAL).unlink(missing_ok=True)
    simulated.received.clear()
    simulated.arm(None)
    simulated.client_keys = []
    simulated.takes_files_away = False
    simulated.drops_logins = False
    simulated.slow_seconds = SLOW_SECONDS
    settings.BANK_SFTP_URL = running_bank.url()
    settings.BANK_SFTP_PASSWORD = PASSWORD
    settings.BANK_SFTP_KEY_FILE = None
    settings.BANK_SFTP_HOST_KEY = running_bank.host_key
    settings.BANK_OUTBOUND_DIR = TO_BANK
    settings.BANK_INBOUND_DIR = FROM_BANK
    settings.BANK_SFTP_TIMEOUT_SECONDS = 5
    settings.INBOUND_DIR = tmp_path / "inbound"
    return simulated


def command(name: str, *args: str) -> tuple[dict, str | None]:
    """(the JSON it printed, the CommandError's message or None)."""
    out = io.StringIO()
    error = None
    try:
        call_command(name, *args, stdout=out, stderr=io.StringIO())
    except Exception as exc:  # CommandError: the command's one line
        if type(exc).__name__ != "CommandError":
            raise
        error = str(exc)
    text = out.getvalue().strip()
    return (json.loads(text) if text else {}), error


def received_names(bank) -> list[str]:
    return [record["name"] for record in bank.received]


def remote(bank, folder: str, name: str = "") -> list[str]:
    """The files in a folder of the bank (those whose name starts with `name`: a session an earlier test gave up
    on may still be answered slowly)."""
    return sorted(path.name for path in Path(bank.root, folder).iterdir() if path.name.startswith(name))
