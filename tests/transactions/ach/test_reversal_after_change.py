"""Reversal after the account changed: the credit pays the NOC-corrected account, a blocked method is 409, and
a return that arrives after the reversal is matched to its original entry and recorded."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine

from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run, saved_method_txn
from transactions.models import Transaction, TransactionReturn
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tuesday_after_monday():
    """Reversals are asked for on the Tuesday after Monday's settlement, inside the 5 banking days."""
    with time_machine.travel(datetime(2026, 12, 8, 15, tzinfo=UTC), tick=True):
        yield


RETURN_TIME = "2026-12-08T14:00:00Z"
TUESDAY_MORNING = "2026-12-08T15:00:00Z"


def _settled(method, count=1):
    txns = [saved_method_txn(method, amount=4200 + index) for index in range(count)]
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    for txn in txns:
        txn.refresh_from_db()
        assert txn.status == "Settled"
    return txns


def _import(tmp_path, entries, name="returns.ach"):
    path = tmp_path / name
    path.write_text(return_file_for(entries, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return run("import_returns", str(path), "--at", RETURN_TIME)


def _reversal_credit(api_client, debit) -> Transaction:
    response = api_client.post(f"/transactions/{debit.uuid}/reverse", {"reason": "duplicate"}, format="json")
    assert response.status_code == 201, response.content
    return Transaction.objects.get(uuid=response.json()["data"]["uuid"])


def _sent_entry():
    """The one entry of the next day's file, as the independent reader reads it."""
    summary = run("originate", "--at", TUESDAY_MORNING)
    (read,) = [nacha_reader.read(Path(path).read_text()) for path in summary["files"]]
    (entry,) = [entry for batch in read.batches for entry in batch.entries]
    return entry


def test_a_reversal_pays_the_account_a_notice_of_change_corrected(api_client, method, tmp_path):
    (debit,) = _settled(method)
    assert (
        _import(tmp_path, [(debit, "C03", {"routingNumber": "011000015", "accountNumber": "5550001111"})])["notices"]
        == 1
    )

    credit = _reversal_credit(api_client, debit)
    assert (credit.routing_number, credit.account_number, credit.account_last_four) == (
        "011000015",
        "5550001111",
        "1111",
    )
    entry = _sent_entry()
    assert (entry.routing, entry.account.strip(), entry.amount) == ("011000015", "5550001111", 4200)


def test_a_one_off_reversal_pays_the_account_the_notice_on_its_entry_corrected(api_client, company, tmp_path):
    debit = bank_txn(company, amount=3100, account_number="000111222333", account_type="Checking")
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    debit.refresh_from_db()
    assert (
        _import(tmp_path, [(debit, "C06", {"accountNumber": "5550001111", "accountType": "Savings"})])["notices"] == 1
    )

    credit = _reversal_credit(api_client, debit)
    assert (credit.account_number, credit.account_type, credit.routing_number) == (
        "5550001111",
        "Savings",
        debit.routing_number,
    )
    entry = _sent_entry()
    assert (entry.transaction_code, entry.account.strip(), entry.amount) == ("32", "5550001111", 3100)


@pytest.mark.parametrize("code", ["R02", "R03", "R04"])
def test_reversing_to_a_blocked_method_is_409(api_client, method, tmp_path, code):
    returned, settled = _settled(method, count=2)
    _import(tmp_path, [(returned, code, {})])
    method.refresh_from_db()
    assert method.blocked_at is not None

    response = api_client.post(f"/transactions/{settled.uuid}/reverse", {"reason": "duplicate"}, format="json")

    assert response.status_code == 409
    assert response.json()["message"] == "payment method is blocked"
    settled.refresh_from_db()
    assert settled.status == "Settled"
    assert not Transaction.objects.filter(type="Credit").exists()


def test_a_return_after_the_reversal_is_recorded_and_the_unsent_credit_voided(api_client, method, tmp_path):
    (debit,) = _settled(method)
    credit_uuid = api_client.post(f"/transactions/{debit.uuid}/reverse", {"reason": "duplicate"}, format="json").json()[
        "data"
    ]["uuid"]

    summary = _import(tmp_path, [(debit, "R10", {})])

    assert (summary["returns"], summary["unmatched"]) == (1, [])
    debit.refresh_from_db()
    assert debit.status == "Returned" and debit.late_returned_at is not None
    assert debit.reversal_uuid is not None and debit.reversed_at is not None
    assert TransactionReturn.objects.get(transaction=debit).return_code == "R10"
    credit = Transaction.objects.get(uuid=credit_uuid)
    # The payer's bank already gave the money back: the refund is not sent as well.
    assert credit.status == "Voided" and "returned" in credit.failure_reason
    late = run("settle", "--at", "2026-12-08T22:00:01Z")
    assert late["lateReturnSettlements"] == 1


def test_a_return_after_the_reversal_credit_was_sent_is_still_recorded(api_client, method, tmp_path):
    (debit,) = _settled(method)
    credit_uuid = api_client.post(f"/transactions/{debit.uuid}/reverse", {"reason": "duplicate"}, format="json").json()[
        "data"
    ]["uuid"]
    run("originate", "--at", TUESDAY_MORNING)

    summary = _import(tmp_path, [(debit, "R10", {})])

    assert (summary["returns"], summary["unmatched"]) == (1, [])
    debit.refresh_from_db()
    assert debit.status == "Returned"
    assert Transaction.objects.get(uuid=credit_uuid).status == "Processing"
