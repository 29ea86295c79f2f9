"""`import_returns --workers N` on PostgreSQL: each chunk of the file is applied a few companies at a time, each in a
database transaction of its own, in N forked processes. The summary lists what it could not apply in file order, as one
transaction did; a run that stops midway leaves the file being applied, and importing the same file again applies
what it did not, each item once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from transactions.ach import returns
from transactions.ach.matching import NO_ENTRY
from transactions.models import IngestionFile, IngestionPart, RiskAlert, Status, Transaction, TransactionReturn
from transactions.sandbox.bank_files import return_file_for
from vault import db as vault_db

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _interleaved_day(companies: int, each: int) -> list[Transaction]:
    """`each` originated debits for each of `companies` companies, in the order of the return file that names them
    all: its batches are one per company and SEC code (as an RDFI sends them), so each company's PPD entries, then
    each company's WEB entries, and the companies interleave from batch to batch."""
    made = [
        [
            bank_txn(company, amount=1000 + n, standard_entry_class_code="PPD" if n % 2 == 0 else "WEB")
            for n in range(each)
        ]
        for company in [factories.CompanyFactory() for _ in range(companies)]
    ]
    run("originate", "--at", MONDAY_MORNING)
    txns = [made[c][n] for parity in (0, 1) for c in range(companies) for n in range(parity, each, 2)]
    for txn in txns:
        txn.refresh_from_db()
    return txns


def _return_file(tmp_path, entries):
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for(entries, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return path


def test_companies_applied_on_two_workers_give_the_summary_in_file_order(tmp_path, monkeypatch):
    txns = _interleaved_day(companies=4, each=4)
    # Items 1-3 of every six park (unknown code), every fifth names no entry (its trace changed since): each chunk's
    # parked items fall to both of its transactions, interleaved.
    codes = ["R99" if n % 6 in (1, 2, 3) else "R01" for n in range(len(txns))]
    path = _return_file(tmp_path, list(zip(txns, codes, [{}] * len(txns), strict=True)))
    unmatched = txns[::5]
    for txn in unmatched:
        Transaction.objects.filter(pk=txn.pk).update(trace_number=f"9{txn.trace_number[1:]}")
    monkeypatch.setattr(returns, "LOCK_CHUNK", 6)  # three chunks, each of several companies

    summary = run("import_returns", str(path), "--workers", "2", "--at", "2026-12-08T14:00:00Z")

    gone = {txn.pk for txn in unmatched}
    assert summary["unmatched"] == [
        txn.trace_number for txn, code in zip(txns, codes, strict=True) if code == "R01" and txn.pk in gone
    ]
    # An item that names no entry is parked too (CONTRACT 12 "Matching"), in its place in the file.
    assert summary["exceptions"] == [
        {"trace": txn.trace_number, "code": code, "reason": "unknown return code" if code == "R99" else NO_ENTRY}
        for txn, code in zip(txns, codes, strict=True)
        if code == "R99" or txn.pk in gone
    ]
    assert len(summary["unmatched"]) == 3 and len(summary["exceptions"]) == 9 + 3
    applied = [txn for txn, code in zip(txns, codes, strict=True) if code == "R01" and txn.pk not in gone]
    assert summary["returns"] == len(applied) == TransactionReturn.objects.count()
    assert set(Transaction.objects.filter(status=Status.RETURNED).values_list("pk", flat=True)) == {
        txn.pk for txn in applied
    }
    # Each chunk went to two transactions, and each company's items of a chunk to one of them.
    parts = list(IngestionPart.objects.values_list("chunk", "company_ids"))
    assert sorted(chunk for chunk, _ids in parts) == [0, 0, 1, 1, 2, 2]
    for number in range(3):
        ids = [company_id for chunk, company_ids in parts if chunk == number for company_id in company_ids]
        assert len(ids) == len(set(ids))
    assert not IngestionFile.objects.get().applying
    # Every company's rates were weighed once the file was in (each process weighs a share of the companies): its
    # returns over its 4 debits.
    overall = RiskAlert.objects.filter(category="overall").values_list("company_id", "level", "returns", "debits")
    returned = {company_id: 0 for company_id in {txn.company_id for txn in txns}}
    for txn in applied:
        returned[txn.company_id] += 1
    assert sorted(returned.values()) == [0, 1, 1, 2]
    assert sorted(overall) == sorted((company_id, "breached", n, 4) for company_id, n in returned.items() if n)


def test_a_run_that_stops_midway_leaves_the_file_being_applied_and_the_same_file_finishes_it(tmp_path, monkeypatch):
    txns = _interleaved_day(companies=3, each=3)
    path = _return_file(tmp_path, [(txn, "R01", {}) for txn in txns])
    failing = txns[1].company_id
    apply = returns._apply

    def broken_for_one_company(file_item, txn, chunk):
        if txn is not None and txn.company_id == failing:
            raise RuntimeError("the connection to the database dropped")
        return apply(file_item, txn, chunk)

    monkeypatch.setattr(returns, "LOCK_CHUNK", 3)  # chunks of two companies or three
    monkeypatch.setattr(returns, "_apply", broken_for_one_company)
    with pytest.raises(RuntimeError, match="connection to the database dropped"):
        run("import_returns", str(path), "--workers", "2")

    ingestion = IngestionFile.objects.get()
    assert ingestion.applying and ingestion.summary == {}
    assert not Transaction.objects.filter(company_id=failing, status=Status.RETURNED).exists()
    # What committed is what its parts say.
    parts = IngestionPart.objects.values_list("summary", flat=True)
    assert TransactionReturn.objects.count() == sum(part["returns"] for part in parts) < 9

    monkeypatch.setattr(returns, "_apply", apply)
    summary = run("import_returns", str(path), "--workers", "2")

    assert (summary["returns"], summary["unmatched"], summary["alreadyImported"]) == (9, [], False)
    assert IngestionFile.objects.get().summary == summary
    assert set(Transaction.objects.values_list("status", flat=True)) == {Status.RETURNED}
    # Each entry was returned once, and announced once.
    assert TransactionReturn.objects.count() == 9
    returned = Event.objects.filter(type="transaction.returned").values_list("object_uuid", flat=True)
    assert sorted(returned) == sorted(txn.uuid for txn in txns)
    assert run("import_returns", str(path)) == {**summary, "alreadyImported": True}


def test_a_large_return_file_refreshes_the_planner_statistics_of_what_it_changed(tmp_path, monkeypatch):
    txns = _interleaved_day(companies=2, each=2)
    notices = tmp_path / "notices.ach"
    notices.write_text(
        return_file_for(
            [(txn, "C05", {"accountType": "Savings"}) for txn in txns], at=datetime(2026, 12, 8, 13, tzinfo=UTC)
        )
    )
    path = _return_file(tmp_path, [(txn, "R01", {}) for txn in txns])
    monkeypatch.setattr(vault_db, "ANALYZE_AFTER_ROWS", len(txns))  # a file this large counts as large

    def analyzed() -> dict[str, object]:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT relname, analyze_count FROM pg_stat_user_tables WHERE relname IN "
                "('transactions_transaction', 'transactions_transactionreturn')"
            )
            return dict(cursor.fetchall())

    before = analyzed()
    noticed = run("import_returns", str(notices), "--workers", "2", "--at", "2026-12-08T14:00:00Z")
    run("import_returns", str(path), "--workers", "2", "--at", "2026-12-08T14:00:00Z")
    after = analyzed()
    # The late settle after a return file reads its entries by status: planned on statistics that say no entry is
    # Returned, it read the status index whole for each company. A notice moves no status: its file ANALYZEs
    # nothing (at 1M entries that was 0.8 s of a 10,000-notice file).
    assert noticed["notices"] == len(txns)
    assert {table: after[table] - before.get(table, 0) for table in after} == {
        "transactions_transaction": 1,
        "transactions_transactionreturn": 1,
    }
