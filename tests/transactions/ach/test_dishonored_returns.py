"""Dishonored (R61-R70) and contested dishonored (R71-R77) returns are their own records beside the return they
answer (review d-1): they never change an entry's status, never make a settlement, never void a credit, never
count in return rates; one with no return to answer is parked, not lost. Returns received after their code's time
frame are still booked and flagged "candidate to dishonor" (issue 23 part 3)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest

from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run
from transactions import calendar
from transactions.models import DishonoredReturn, ParkedReturnItem, Settlement, Transaction, TransactionReturn
from transactions.return_codes import NOT_RETURNS, RETURN_CODES, ReturnKind, TimeFrame
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


FRIDAY_BEFORE = "2026-12-04T15:00:00Z"


def _eastern(day, hour: int = 10) -> str:
    return datetime.combine(day, time(hour), tzinfo=calendar.EASTERN).astimezone(UTC).isoformat()


def _import(tmp_path, entries, at: str, name: str = "returns.ach") -> dict:
    path = tmp_path / name
    path.write_text(return_file_for(entries, at=datetime.fromisoformat(at)))
    return run("import_returns", str(path), "--at", at)


@pytest.fixture
def settled(company):
    """A $2M debit and a small one, settled Monday: sent the Friday before as next-day entries (above $1M an entry
    cannot go same day, CONTRACT 12)."""
    txns = [bank_txn(company, amount=200_000_000), bank_txn(company, amount=5700)]
    run("originate", "--at", FRIDAY_BEFORE)
    run("settle", "--at", MONDAY_SETTLED)
    for txn in txns:
        txn.refresh_from_db()
    assert {txn.status for txn in txns} == {"Settled"}
    return txns


def test_the_code_table_says_which_codes_are_dishonors_and_contests():
    assert {code for code, entry in RETURN_CODES.items() if entry.kind == ReturnKind.DISHONORED} == {
        "R61",
        "R62",
        "R67",
        "R68",
        "R69",
        "R70",
    }
    assert {code for code, entry in RETURN_CODES.items() if entry.kind == ReturnKind.CONTESTED} == {
        f"R{n}" for n in range(71, 78)
    }
    assert NOT_RETURNS == {f"R{n}" for n in (61, 62, 67, 68, 69, 70, *range(71, 78))}
    assert {code for code, entry in RETURN_CODES.items() if entry.time_frame == TimeFrame.SIXTY_DAYS} == {
        "R05",
        "R07",
        "R10",
        "R11",
        "R37",
        "R51",
        "R53",
    }


def test_a_dishonor_answering_a_return_is_recorded_and_moves_no_money(settled, tmp_path):
    big, small = settled
    _import(tmp_path, [(big, "R01", {})], "2026-12-08T14:00:00+00:00", "r01.ach")
    run("settle", "--at", "2026-12-08T22:00:00Z")  # the R01's own late-return settlement
    late_settlements = list(Settlement.objects.filter(kind="late_return").values_list("pk", "net_amount"))

    summary = _import(tmp_path, [(big, "R61", {}), (big, "R73", {})], "2026-12-09T14:00:00+00:00", "r61.ach")

    assert (summary["returns"], summary["dishonoredReturns"], summary["contestedReturns"]) == (0, 1, 1)
    assert summary["unmatched"] == [] and summary["exceptions"] == []
    answered = TransactionReturn.objects.get(transaction=big)
    assert answered.return_code == "R01"
    assert sorted(answered.dishonored_returns.values_list("kind", "code")) == [
        ("contested", "R73"),
        ("dishonored", "R61"),
    ]
    big.refresh_from_db()
    assert big.status == "Returned" and big.return_code == "R01"
    assert run("settle", "--at", "2026-12-09T22:00:00Z")["lateReturnSettlements"] == 0
    assert list(Settlement.objects.filter(kind="late_return").values_list("pk", "net_amount")) == late_settlements


def test_a_return_and_its_dishonor_in_one_file_are_both_recorded(settled, tmp_path):
    big, _ = settled
    summary = _import(tmp_path, [(big, "R07", {}), (big, "R68", {})], "2026-12-08T14:00:00+00:00")
    assert (summary["returns"], summary["dishonoredReturns"]) == (1, 1)
    assert DishonoredReturn.objects.get().transaction_return == TransactionReturn.objects.get()


def test_a_second_dishonor_of_one_return_is_parked(settled, tmp_path):
    big, _ = settled
    _import(tmp_path, [(big, "R01", {}), (big, "R68", {})], "2026-12-08T14:00:00+00:00", "one.ach")
    summary = _import(tmp_path, [(big, "R69", {})], "2026-12-09T14:00:00+00:00", "two.ach")
    assert summary["dishonoredReturns"] == 0
    assert summary["exceptions"] == [
        {"trace": big.trace_number, "code": "R69", "reason": "the return of this entry already has a dishonored return"}
    ]
    assert DishonoredReturn.objects.count() == 1 and ParkedReturnItem.objects.get().code == "R69"


def test_a_dishonor_on_a_reversed_debit_voids_no_pending_credit(company, tmp_path):
    """Review: an R67 on a reversed debit voided its pending reversal credit, as a return would."""
    debit = bank_txn(company, amount=4100)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    credit = bank_txn(company, amount=4100, type="Credit", effective_date=datetime(2026, 12, 9).date())
    Transaction.objects.filter(pk=debit.pk).update(status="Reversed", reversal_uuid=credit.uuid)
    debit.refresh_from_db()

    summary = _import(tmp_path, [(debit, "R67", {})], "2026-12-08T14:00:00+00:00")

    assert summary["exceptions"][0]["reason"] == "dishonored return with no return of this entry to answer"
    credit.refresh_from_db()
    debit.refresh_from_db()
    assert (credit.status, debit.status, debit.late_returned_at) == ("Pending", "Reversed", None)


def test_another_companys_dishonors_stay_theirs(company, other_company, tmp_path):
    mine, theirs = bank_txn(company), bank_txn(other_company)
    run("originate", "--at", MONDAY_MORNING)
    mine.refresh_from_db()
    theirs.refresh_from_db()
    _import(tmp_path, [(mine, "R01", {}), (theirs, "R01", {})], "2026-12-08T14:00:00+00:00", "r.ach")
    _import(tmp_path, [(mine, "R61", {}), (theirs, "R61", {})], "2026-12-09T14:00:00+00:00", "d.ach")
    assert dict(DishonoredReturn.objects.values_list("transaction_id", "company_id")) == {
        mine.pk: company.pk,
        theirs.pk: other_company.pk,
    }


# --- timeliness -----------------------------------------------------------------------------------------------


@pytest.fixture
def settled_one(company):
    txn = bank_txn(company, amount=2500)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    txn.refresh_from_db()
    return txn, txn.batch.effective_date


@pytest.mark.parametrize(
    ("code", "banking_days", "calendar_days", "untimely"),
    [
        ("R01", 2, 0, False),  # received on the second banking day after settlement: in time
        ("R01", 3, 0, True),
        # Unauthorized consumer debit: the first banking day after the 60th calendar day (settled Monday 2026-12-07:
        # Friday 2027-02-05 is the 60th day, so Monday 02-08 is the last; review 2026-12-02 N2).
        ("R10", 0, 60, False),
        ("R10", 0, 62, False),  # Sunday 02-07: the deadline falls on Monday
        ("R10", 0, 64, True),  # Tuesday 02-09
    ],
)
def test_a_return_after_its_time_frame_is_booked_and_flagged(
    settled_one, tmp_path, code, banking_days, calendar_days, untimely
):
    txn, settled_on = settled_one
    received = calendar.add_business_days(settled_on, banking_days) + timedelta(days=calendar_days)
    summary = _import(tmp_path, [(txn, code, {})], _eastern(received))
    assert summary["returns"] == 1
    entry = TransactionReturn.objects.get()
    due_by = (
        calendar.add_business_days(settled_on, 2)
        if code == "R01"
        else calendar.next_business_day(settled_on + timedelta(days=60), include_today=False)
    )  # per RETURN_CODES[code].time_frame
    assert (entry.due_by, entry.is_untimely) == (due_by, untimely)
    txn.refresh_from_db()
    assert txn.status == "Returned"  # booked either way


def test_a_code_without_a_fixed_window_is_never_flagged(settled_one, tmp_path):
    txn, settled_on = settled_one
    _import(tmp_path, [(txn, "R06", {})], _eastern(settled_on + timedelta(days=30)))
    entry = TransactionReturn.objects.get()
    assert (entry.due_by, entry.is_untimely) == (None, False)


def test_the_admin_lists_untimely_returns_as_candidates_to_dishonor(admin_client, company, tmp_path):
    timely, late = bank_txn(company), bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    timely.refresh_from_db()
    late.refresh_from_db()
    settled_on = timely.batch.effective_date
    _import(tmp_path, [(timely, "R01", {})], _eastern(calendar.add_business_days(settled_on, 1)), "a.ach")
    _import(tmp_path, [(late, "R01", {})], _eastern(calendar.add_business_days(settled_on, 5)), "b.ach")

    page = admin_client.get("/admin/transactions/transactionreturn/", {"is_untimely__exact": "1"})

    assert page.status_code == 200
    listed = [entry.pk for entry in page.context["cl"].result_list]
    assert listed == [TransactionReturn.objects.get(transaction=late).pk]
    assert "candidate to dishonor" in page.content.decode().lower()


def test_the_admin_shows_dishonors_and_parked_items(admin_client, settled, tmp_path):
    big, small = settled
    _import(tmp_path, [(big, "R01", {}), (big, "R68", {}), (small, "R61", {})], "2026-12-08T14:00:00+00:00")
    dishonor, parked = DishonoredReturn.objects.get(), ParkedReturnItem.objects.get()

    pages = {
        "/admin/transactions/dishonoredreturn/": "R68",
        f"/admin/transactions/dishonoredreturn/{dishonor.pk}/change/": "Untimely Return",
        "/admin/transactions/parkedreturnitem/": "dishonored return with no return of this entry to answer",
        f"/admin/transactions/ingestionfile/{parked.ingestion_file_id}/change/": "Parked items (not applied)",
        f"/admin/transactions/transactionreturn/{dishonor.transaction_return_id}/change/": "R68",
    }
    for url, shown in pages.items():
        page = admin_client.get(url)
        assert page.status_code == 200, url
        assert shown in page.content.decode(), url
