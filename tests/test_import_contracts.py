"""The layers of the house are import contracts (.importlinter, run by `make lint`): they hold on the code as it is,
and each one breaks when an import is added against it (on a copy of the tree, one extra line)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from configparser import ConfigParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_free

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / ".importlinter"
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _packages() -> list[str]:
    parser = ConfigParser()
    parser.read(CONFIG)
    return parser["importlinter"]["root_packages"].split()


def _lint(root: Path, contract: str | None = None) -> subprocess.CompletedProcess:
    command = [str(LINT_IMPORTS), "--config", str(root / ".importlinter"), "--no-cache"]
    if contract:
        command += ["--contract", contract]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=120)  # noqa: S603


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages the contracts read, and of the contracts."""
    for package in _packages():
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG, tmp_path / ".importlinter")
    return tmp_path


def test_the_contracts_hold_on_the_code(tree):
    result = _lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    ("contract", "module", "arrow"),
    [
        ("apps", "payments/models.py", "transactions.models"),  # an app imports one above it
        ("apps", "accounts/services.py", "config.urls"),  # an app imports the project package
        ("apps", "reporting/records.py", "monitoring.metrics"),
        ("plumbing", "vault/crypto.py", "payments.models"),  # the plumbing knows a domain word
        ("plumbing", "events/types.py", "customers.models"),  # the outbox knows a domain
        ("transactions", "transactions/risk/limits.py", "transactions.charges.rules"),  # risk asks a charge
        ("transactions", "transactions/return_codes.py", "transactions.ach.matching"),  # the kernel knows a wing
        ("transactions", "transactions/charges/rules.py", "transactions.ach.returns"),  # a charge knows the ACH run
        ("transactions", "transactions/methods/base.py", "transactions.state"),  # a method knows the kernel
        ("transactions", "transactions/ach/matching.py", "transactions.admin"),  # a wing knows a door
        ("apps", "nacha/reader.py", "transactions.models"),  # the format library knows the domain
        ("apps", "nacha/fields.py", "vault.errors"),  # the format library leans on the plumbing
        ("nacha", "nacha/fields.py", "nacha.entry_detail"),  # the fields know a record type
        ("nacha", "nacha/writer.py", "nacha.returns_writer"),  # the origination writer knows the RDFI's
        ("events", "events/outbox.py", "events.tasks"),  # the outbox wakes its worker by name: the old circle
        ("events", "events/delivery.py", "events.tasks"),  # the delivery loop imports the task that runs it
        ("reporting", "reporting/exports.py", "reporting.tasks"),  # an export's build queues itself
        ("bank", "bank/state.py", "bank.transmit"),  # the status table knows a run
        ("apps", "transactions/ach/returns.py", "bank.fetch"),  # the ACH wing knows what carries its files
        ("reporting", "reporting/kinds.py", "reporting.registry"),  # a field kind knows the field table
        ("reporting", "reporting/page.py", "reporting.stream"),  # a page knows the CSV export
    ],
)
def test_each_contract_breaks_when_an_arrow_is_added_against_it(tree, contract, module, arrow):
    path = tree / module
    path.write_text(path.read_text() + f"\nimport {arrow}  # noqa: E402, F401\n")
    result = _lint(tree, contract)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "BROKEN" in result.stdout
    assert arrow in result.stdout
