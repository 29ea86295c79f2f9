"""The bulk lifecycle commands run the cyclic garbage collector's young generation every 50,000 allocations (it walked
each chunk's rows every 700), and leave the process's collector as they found it: a test runs them in its own
process."""

from __future__ import annotations

import gc

import pytest
from django.core.management.base import CommandError

from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run
from transactions.management.commands import import_returns, originate, settle
from vault.commands import BULK_COLLECTOR_THRESHOLD

pytestmark = pytest.mark.django_db


def _recording(module, name: str, seen: list[int], monkeypatch) -> None:
    real = getattr(module, name)

    def recorded(*args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, recorded)


def test_each_bulk_command_raises_the_young_threshold_while_it_works_and_restores_it(company, tmp_path, monkeypatch):
    seen: list[int] = []
    _recording(originate, "transactions_originate", seen, monkeypatch)
    _recording(settle, "transactions_settle", seen, monkeypatch)
    _recording(import_returns, "returns_import", seen, monkeypatch)
    before = gc.get_threshold()
    bank_txn(company)

    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    with pytest.raises(CommandError):  # not a return file: refused, and the collector restored all the same
        run("import_returns", str(tmp_path / "missing.ach"))
    (tmp_path / "empty.ach").write_text("")
    with pytest.raises(CommandError):
        run("import_returns", str(tmp_path / "empty.ach"))

    assert seen == [BULK_COLLECTOR_THRESHOLD] * 3
    assert gc.get_threshold() == before
