"""`manage.py bank_simulator` as an operator or `make run` starts it: one JSON line with its port and host key when
ready, then an ODFI on that port that takes our file and acknowledges it."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

from reconciliation.formats import statement_read
from tests.bank.conftest import command
from tests.bank.test_key_login import key_pair
from tests.bank.test_transmit import TRANSMIT_AT, _originated

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def _ready_line(process: subprocess.Popen, seconds: float = 60) -> dict:
    chooser = selectors.DefaultSelector()
    chooser.register(process.stdout, selectors.EVENT_READ)
    assert chooser.select(seconds), "bank_simulator printed nothing"
    return json.loads(process.stdout.readline())


@pytest.mark.parametrize("login", ["password", "password-file", "key"])
def test_the_simulator_command_prints_its_port_and_host_key_and_serves(company, settings, tmp_path, login):
    """Its password never on the command line (security review 2026-12-07 L6): BANK_SIMULATOR_PASSWORD or
    --password-file; `--fault reject` makes it reject the first file."""
    env = {**os.environ, "DEBUG": "1", "VAR_DIR": str(tmp_path / "var"), "LOG_LEVEL": "WARNING"}
    env["BANK_SIMULATOR_PASSWORD"] = "pw"
    root = tmp_path / "bank"
    arguments = ["bank_simulator", "--root", str(root), "--port", "0"]
    if login == "password":  # the statement of our settlement account as camt.053, a line a batch, with noise
        arguments += ["--statement", "camt053", "--posting", "batch", "--statement-noise"]
    if login == "password-file":
        (tmp_path / "password").write_text("pw\n")
        env.pop("BANK_SIMULATOR_PASSWORD")
        arguments += ["--password-file", str(tmp_path / "password"), "--fault", "reject"]
    settings.BANK_SFTP_PASSWORD, settings.BANK_SFTP_KEY_FILE = "pw", None
    if login == "key":  # the bank lists our public key; we log in with the private one, no password
        private, public = key_pair(tmp_path, "bank_sftp_key")
        (tmp_path / "client_keys").write_text(f"# our key\n{public}\n")
        arguments += ["--client-keys-file", str(tmp_path / "client_keys")]
        settings.BANK_SFTP_PASSWORD, settings.BANK_SFTP_KEY_FILE = None, str(private)
    process = subprocess.Popen(  # noqa: S603 - fixed arguments
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        ready = _ready_line(process)
        assert set(ready) == {"port", "hostKey"} and ready["hostKey"].startswith("ssh-ed25519 ")
        settings.BANK_SFTP_URL = f"sftp://anyone@127.0.0.1:{ready['port']}"
        settings.BANK_SFTP_HOST_KEY = ready["hostKey"]
        name = _originated(company)
        result, error = command("transmit_files", "--at", TRANSMIT_AT)
        assert (result, error) == ({"transmitted": [name], "failed": []}, None)
        assert (root / "to-bank" / name).exists()
        ack = json.loads((root / "from-bank" / f"{name}.ack").read_text())
        assert (ack["file"], ack["status"]) == (name, "rejected" if login == "password-file" else "accepted")
        (journal,) = (root / "journal.jsonl").read_text().splitlines()
        assert json.loads(journal)["name"] == name
        written = sorted(path.name[len(name) :] for path in (root / "from-bank").glob(f"{name}.*"))
        assert (
            written
            == {"password": [".ack", ".camt053.xml"], "password-file": [".ack"], "key": [".ack", ".bai2"]}[login]
        )
        if login != "password-file":
            statement = statement_read((root / "from-bank" / f"{name}{written[1]}").read_bytes())
            assert statement.account == "9876543210" and statement.lines
            fees = [line for line in statement.lines if line.type_code in ("698", "ACMT/MDOP/CHRG")]
            assert len(fees) == (1 if login == "password" else 0)  # the noise's fee
    finally:
        process.terminate()
        process.wait(30)
