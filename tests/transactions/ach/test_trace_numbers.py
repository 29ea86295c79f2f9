"""Trace numbers are unique per originating DFI and processing day, and the sequence continues across days (wrapping
after 9,999,999) so that a number is reused as late as possible (CONTRACT 12 "Matching"); the sandbox has its own
trace space and file id modifiers."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import IntegrityError, transaction

from tests import factories
from tests.transactions.ach.conftest import MONDAY, MONDAY_MORNING, bank_txn, run
from transactions.models import OriginationFile, TraceSequence, Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

TUESDAY_MORNING = "2026-12-08T15:00:00Z"


def _traces(*txns) -> list[str]:
    return [Transaction.objects.get(pk=txn.pk).trace_number for txn in txns]


def test_the_sequence_continues_the_next_day_where_it_stopped(company, settings):
    odfi = settings.ACH_ORIGINATING_DFI
    monday = [bank_txn(company), bank_txn(company)]
    run("originate", "--at", MONDAY_MORNING)
    tuesday = bank_txn(company)
    run("originate", "--at", TUESDAY_MORNING)

    assert _traces(*monday, tuesday) == [odfi + "0000001", odfi + "0000002", odfi + "0000003"]
    assert Transaction.objects.get(pk=tuesday.pk).trace_date == date(2026, 12, 8)


def test_the_sequence_wraps_after_its_last_number_and_a_batch_still_lists_its_entries_in_trace_order(company, settings):
    settings.ACH_TRACE_SEQUENCE_LAST = 3
    odfi = settings.ACH_ORIGINATING_DFI
    monday = [bank_txn(company), bank_txn(company)]
    run("originate", "--at", MONDAY_MORNING)
    tuesday = [bank_txn(company), bank_txn(company)]
    (path,) = run("originate", "--at", TUESDAY_MORNING)["files"]

    assert _traces(*monday) == [odfi + "0000001", odfi + "0000002"]
    assert sorted(_traces(*tuesday)) == [odfi + "0000001", odfi + "0000003"]
    in_file = [line[79:94] for line in open(path).read().splitlines() if line.startswith("6")]
    assert in_file == sorted(in_file)


def test_the_first_run_with_a_kept_sequence_continues_from_the_latest_file(company, settings):
    odfi = settings.ACH_ORIGINATING_DFI
    monday = [bank_txn(company), bank_txn(company)]
    run("originate", "--at", MONDAY_MORNING)
    TraceSequence.objects.all().delete()  # as before the sequence was kept
    tuesday = bank_txn(company)
    run("originate", "--at", TUESDAY_MORNING)
    assert _traces(*monday, tuesday)[-1] == odfi + "0000003"


def test_sandbox_entries_have_their_own_trace_space_and_file_id_modifiers(company, settings):
    sandbox = factories.CompanyFactory(name="Sandbox Merchant", is_sandbox=True)
    live, play = bank_txn(company), bank_txn(sandbox)
    run("originate", "--at", MONDAY_MORNING)

    assert _traces(live, play) == [
        settings.ACH_ORIGINATING_DFI + "0000001",
        settings.SANDBOX_ORIGINATING_DFI + "0000001",
    ]
    files = dict(OriginationFile.objects.values_list("is_sandbox", "file_id_modifier"))
    assert files == {False: "A", True: "A"}
    sandbox_file = OriginationFile.objects.get(is_sandbox=True)
    lines = open(sandbox_file.path).read().splitlines()
    assert {line[79:87] for line in lines if line.startswith("5")} == {settings.SANDBOX_ORIGINATING_DFI}


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
