"""Return deadlines (CONTRACT 12 "Return deadlines", ACH review 2026-12-02 N2 and N7): a return is timely through
the end of the banking day on which its rule's deadline falls: the second banking day after settlement for most
codes, the first banking day after the 60th calendar day after settlement for R05, R07, R10, R11, R37, R51 and R53.
An untimely return is applied and flagged `untimely: true` on the return, its event and the admin. A contested
dishonored return (R71-R77) that answers no dishonor of ours is parked."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from events.models import Event
from tests.transactions.ach.conftest import bank_txn, run
from transactions.ach.returns import return_due_by
from transactions.models import DishonoredReturn, Transaction, TransactionReturn
from transactions.return_codes import RETURN_CODES
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

WEDNESDAY = date(2026, 12, 2)  # the 60th calendar day after it is Sunday 2027-01-31


@pytest.mark.parametrize(
    ("code", "settled_on", "due_by"),
    [
        ("R10", WEDNESDAY, date(2027, 2, 1)),  # Sunday 01-31 -> Monday 02-01
        ("R07", date(2026, 12, 4), date(2027, 2, 3)),  # Tuesday 02-02 is the 60th day -> Wednesday 02-03
        ("R05", date(2026, 11, 16), date(2027, 1, 19)),  # Friday 01-15 -> Monday 01-18 is a Fed holiday -> 01-19
        ("R01", WEDNESDAY, date(2026, 12, 4)),  # two banking days
    ],
)
def test_each_codes_deadline(code, settled_on, due_by):
    assert return_due_by(RETURN_CODES[code], settled_on) == due_by


def _settled_on_wednesday(company) -> Transaction:
    txn = bank_txn(company, effective_date=WEDNESDAY, amount=100_000_000, standard_entry_class_code="PPD")
    run("originate", "--at", "2026-12-02T15:00:00Z")
    run("settle", "--at", "2026-12-02T22:00:01Z")
    txn.refresh_from_db()
    assert txn.status == "Settled"
    return txn


def _returned(tmp_path, txn: Transaction, code: str, day: str) -> dict:
    path = tmp_path / f"{code}-{day}.ach"
    path.write_text(return_file_for([(txn, code, {})], at=datetime.fromisoformat(f"{day}T13:00:00+00:00")))
    return run("import_returns", str(path), "--at", f"{day}T14:00:00Z")


@pytest.mark.parametrize(("day", "untimely"), [("2027-02-01", False), ("2027-02-02", True)])
def test_an_r10_is_timely_through_the_first_banking_day_after_the_60th_day(
    company, api_client, tmp_path, day, untimely
):
    """N2: a $1,000,000.00 R10 received Monday 2027-02-01 for an entry settled 2026-12-02 was flagged untimely."""
    txn = _settled_on_wednesday(company)

    summary = _returned(tmp_path, txn, "R10", day)

    assert summary["returns"] == 1
    returned = TransactionReturn.objects.get(transaction=txn)
    assert (returned.due_by, returned.is_untimely) == (date(2027, 2, 1), untimely)
    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    assert (record["status"], record["returnCode"], record["untimely"]) == ("Returned", "R10", untimely)
    event = Event.objects.get(type="transaction.late_returned", object_uuid=txn.uuid)
    assert event.data["untimely"] is untimely


def test_a_transaction_not_returned_shows_untimely_null(company, api_client):
    txn = bank_txn(company)
    assert api_client.get(f"/transactions/{txn.uuid}").json()["data"]["untimely"] is None


def _r01_of(company, tmp_path) -> Transaction:
    txn = bank_txn(company, effective_date=date(2026, 12, 7))
    run("originate", "--at", "2026-12-07T15:00:00Z")
    txn.refresh_from_db()
    assert _returned(tmp_path, txn, "R01", "2026-12-08")["returns"] == 1
    return txn


def test_a_contested_dishonored_return_that_answers_no_dishonor_of_ours_is_parked(company, tmp_path):
    """N7: an R73 was recorded against a return that was never dishonored."""
    txn = _r01_of(company, tmp_path)

    summary = _returned(tmp_path, txn, "R73", "2026-12-10")

    assert summary["contestedReturns"] == 0
    assert summary["exceptions"] == [
        {"trace": txn.trace_number, "code": "R73", "reason": "contested return with no dishonored return to answer"}
    ]
    assert not DishonoredReturn.objects.exists()


def test_a_contested_dishonored_return_that_answers_our_dishonor_is_recorded(company, tmp_path):
    txn = _r01_of(company, tmp_path)
    assert _returned(tmp_path, txn, "R68", "2026-12-09")["dishonoredReturns"] == 1

    summary = _returned(tmp_path, txn, "R73", "2026-12-10")

    assert (summary["contestedReturns"], summary["exceptions"]) == (1, [])
    assert sorted(DishonoredReturn.objects.values_list("kind", flat=True)) == ["contested", "dishonored"]
