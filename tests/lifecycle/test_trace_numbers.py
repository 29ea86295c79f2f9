"""Trace numbers are unique per originating DFI and processing day; the sequence starts again every day, and
`import_returns` matches a return to the most recent entry with its trace number inside the return window."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction

from tests import factories
from tests.lifecycle.conftest import MONDAY, MONDAY_MORNING, bank_txn, run
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

TUESDAY_MORNING = "2026-12-08T15:00:00Z"
LAST_SEQUENCE = "9999999"


def test_the_sequence_starts_again_the_next_day_after_the_last_number_of_a_day(company, settings):
    odfi = settings.ACH_ORIGINATING_DFI
    first, full = bank_txn(company), bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    # Monday used the last number of the 7-digit sequence: the old global sequence stopped for good here.
    Transaction.objects.filter(pk=full.pk).update(trace_number=odfi + LAST_SEQUENCE)
    first.refresh_from_db()

    tuesday = bank_txn(company)
    summary = run("originate", "--at", TUESDAY_MORNING)

    assert summary["transactions"] == 1 and summary["unwrittenFiles"] == []
    tuesday.refresh_from_db()
    assert tuesday.trace_number == first.trace_number == odfi + "0000001"
    assert (first.trace_date, tuesday.trace_date) == (MONDAY, date(2026, 12, 8))


def test_the_same_trace_number_twice_on_one_day_is_refused_by_the_database(company, settings):
    kept = bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    kept.refresh_from_db()
    with pytest.raises(IntegrityError), transaction.atomic():
        factories.TransactionFactory(company=company, trace_number=kept.trace_number, trace_date=kept.trace_date)
    other_day = factories.TransactionFactory(
        company=company, trace_number=kept.trace_number, trace_date=kept.trace_date + timedelta(days=1)
    )
    assert other_day.pk


def test_a_return_matches_the_most_recent_entry_with_its_trace_number(company, tmp_path):
    monday = bank_txn(company, amount=100)
    run("originate", "--at", MONDAY_MORNING)
    tuesday = bank_txn(company, amount=200)
    run("originate", "--at", TUESDAY_MORNING)
    monday.refresh_from_db()
    tuesday.refresh_from_db()
    assert monday.trace_number == tuesday.trace_number
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(tuesday, "R01", {})], at=datetime(2026, 12, 9, 13, tzinfo=UTC)))

    summary = run("import_returns", str(path), "--at", "2026-12-09T14:00:00Z")

    assert (summary["returns"], summary["unmatched"]) == (1, [])
    monday.refresh_from_db()
    tuesday.refresh_from_db()
    assert (monday.status, tuesday.status) == ("Processing", "Returned")


def test_an_entry_older_than_the_return_window_is_not_matched(company, tmp_path):
    entry = bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    entry.refresh_from_db()
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(entry, "R10", {})], at=datetime(2027, 2, 15, 13, tzinfo=UTC)))

    # 70 days after the entry's day: past the 60-day window and its slack.
    summary = run("import_returns", str(path), "--at", "2027-02-15T14:00:00Z")

    assert (summary["returns"], summary["unmatched"]) == (0, [entry.trace_number])
    entry.refresh_from_db()
    assert entry.status == "Processing"


def test_trace_numbers_stay_unique_across_companies_within_a_day(company, other_company, settings):
    # One NACHA file carries many merchants, but the database key is (trace_number, trace_date, company_id) on
    # PostgreSQL (CONTRACT 8): `originate` allots from one serialized sequence per day across companies.
    for owner in (company, other_company, company):
        bank_txn(owner)
    run("originate", "--at", MONDAY_MORNING)
    for owner in (other_company, company):
        bank_txn(owner)
    run("originate", "--at", "2026-12-07T16:00:00Z")
    traces = list(Transaction.objects.filter(trace_date=MONDAY).values_list("company_id", "trace_number"))
    assert {company_id for company_id, _ in traces} == {company.pk, other_company.pk}
    odfi = settings.ACH_ORIGINATING_DFI
    assert sorted(trace for _, trace in traces) == [odfi + str(n).rjust(7, "0") for n in range(1, 6)]
