from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine

from tests.concurrency import at_once
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run, saved_method_txn
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tuesday_after_monday():
    """Reversals are asked for on the Tuesday after Monday's settlement, inside the 5 banking days."""
    with time_machine.travel(datetime(2026, 12, 8, 15, tzinfo=UTC), tick=True):
        yield


def _reverse(client, txn_uuid, reason="duplicate", **kwargs):
    return client.post(f"/transactions/{txn_uuid}/reverse", {"reason": reason}, format="json", **kwargs)


@pytest.fixture
def settled(method):
    txn = saved_method_txn(method, amount=4200, description="order 17")
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    txn.refresh_from_db()
    assert txn.status == "Settled"
    return txn


def test_reversing_a_settled_debit_creates_the_offsetting_credit(api_client, settled, method):
    response = _reverse(api_client, settled.uuid)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    credit = Transaction.objects.get(uuid=data["uuid"])
    assert data["numericId"] == credit.pk
    assert (data["status"], data["amount"], data["method"], data["type"]) == ("Pending", 4200, "ACH", "Credit")
    assert data["reversalUuid"] == str(settled.uuid)
    assert (credit.company_id, credit.customer_id, credit.payment_method_id) == (
        settled.company_id,
        settled.customer_id,
        method.pk,
    )
    assert (credit.name, credit.account_type, credit.routing_number, credit.account_number) == (
        settled.name,
        settled.account_type,
        settled.routing_number,
        settled.account_number,
    )
    assert credit.batch_id is None and credit.trace_number == ""
    settled.refresh_from_db()
    assert settled.status == "Reversed"
    assert settled.reversal_uuid == credit.uuid
    assert settled.reversed_at is not None


def test_the_reversal_credit_goes_out_in_the_next_file(api_client, settled):
    _reverse(api_client, settled.uuid)
    credit = Transaction.objects.get(type="Credit")
    Transaction.objects.filter(pk=credit.pk).update(effective_date=settled.effective_date)
    summary = run("originate", "--at", MONDAY_MORNING)
    assert summary["transactions"] == 1
    credit.refresh_from_db()
    assert credit.status == "Processing" and credit.trace_number


def test_the_credit_shows_the_day_it_settles_before_it_goes_out(api_client, settled):
    shown = _reverse(api_client, settled.uuid).json()["data"]["effectiveDate"]

    (path,) = run("originate", "--at", "2026-12-08T16:00:00Z")["files"]  # Tuesday's file: it settles Wednesday

    credit = Transaction.objects.select_related("batch").get(type="Credit")
    assert shown == credit.batch.effective_date.isoformat() == "2026-12-09"
    (batch,) = nacha_reader.read(Path(path).read_text()).batches  # and the file says so
    assert batch.effective_date == "261209"


def test_reversing_twice_is_409(api_client, settled):
    assert _reverse(api_client, settled.uuid).status_code == 201
    second = _reverse(api_client, settled.uuid)
    assert second.status_code == 409
    assert second.json()["status"] == "error"
    assert Transaction.objects.filter(type="Credit").count() == 1


def test_a_retried_reversal_with_its_idempotency_key_replays_the_first_answer(api_client, settled):
    """F20: a client retrying after a timeout gets the reversal it made, not 409 not_reversible."""
    first = _reverse(api_client, settled.uuid, HTTP_IDEMPOTENCY_KEY="reverse-17")
    again = _reverse(api_client, settled.uuid, HTTP_IDEMPOTENCY_KEY="reverse-17")
    assert (first.status_code, again.status_code, again.headers["Idempotent-Replayed"]) == (201, 201, "true")
    assert again.json()["data"] == first.json()["data"]
    assert Transaction.objects.filter(type="Credit").count() == 1


@pytest.mark.parametrize(
    ("status", "txn_type"),
    [
        ("Pending", "Debit"),
        ("Processing", "Debit"),
        ("Returned", "Debit"),
        ("Settled", "Credit"),
        ("HELD", "Debit"),
        ("Voided", "Debit"),
    ],
)
def test_anything_but_a_settled_debit_is_409(api_client, company, status, txn_type):
    txn = bank_txn(company, status=status, type=txn_type)
    response = _reverse(api_client, txn.uuid)
    assert response.status_code == 409
    assert Transaction.objects.count() == 1


def test_another_companys_transaction_is_404(other_api_client, settled):
    response = _reverse(other_api_client, settled.uuid)
    assert response.status_code == 404
    assert response.json()["message"] == "Transaction not found"
    settled.refresh_from_db()
    assert settled.status == "Settled"


def test_unknown_transaction_is_404(api_client):
    assert _reverse(api_client, uuid.uuid4()).status_code == 404


def test_unauthenticated_is_401(anonymous_client, settled):
    assert _reverse(anonymous_client, settled.uuid).status_code == 401


def test_key_without_create_transaction_is_403(company, settled):
    from rest_framework.test import APIClient

    from accounts.actions import LIVE_API_KEY_GROUP
    from accounts.models import ActionGroup
    from tests import factories

    ActionGroup.objects.update_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": ["ViewTransactions"]})
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company).authorization)
    assert _reverse(client, settled.uuid).status_code == 403
    settled.refresh_from_db()
    assert settled.status == "Settled"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "required"),
        ({"reason": "changed_my_mind"}, "invalid_choice"),
        ({"reason": None}, "null"),
        ({"reason": "duplicate", "amount": 1}, "unknown_field"),
    ],
)
def test_a_reason_from_the_nacha_list_is_required(api_client, settled, body, code):
    response = api_client.post(f"/transactions/{settled.uuid}/reverse", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == ("amount" if "amount" in body else "reason", code)
    settled.refresh_from_db()
    assert settled.status == "Settled"
    assert Transaction.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_reversals_create_one_credit(company, issued_key, method):
    from rest_framework.test import APIClient

    txn = saved_method_txn(method, amount=4200)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)

    def attempt() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
        return _reverse(client, txn.uuid).status_code

    codes = at_once(attempt, 4)
    assert sorted(codes) == [201, 409, 409, 409]
    assert Transaction.objects.filter(type="Credit").count() == 1


def _file_entries(at: str):
    from pathlib import Path

    from tests.transactions.ach import nacha_reader

    summary = run("originate", "--at", at)
    return [
        (batch, entry)
        for path in summary["files"]
        for batch in nacha_reader.read(Path(path).read_text()).batches
        for entry in batch.entries
    ]


@pytest.mark.parametrize("reason", ["duplicate", "wrong_receiver", "wrong_amount", "wrong_date"])
def test_a_reversal_is_the_nacha_reversing_entry_same_sec_code_and_amount_described_reversal(
    api_client, method, reason
):
    """ACH review d-6 (f3:6): the reversal credit went out as PPD PAYMENT, with no time limit."""
    debit = saved_method_txn(method, amount=4200, standard_entry_class_code="PPD")
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)

    response = _reverse(api_client, debit.uuid, reason=reason)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["standardEntryClassCode"], data["entryDescription"], data["amount"]) == ("PPD", "REVERSAL", 4200)
    ((batch, entry),) = _file_entries("2026-12-08T16:00:00Z")
    assert (batch.sec, batch.description.strip(), batch.service_class) == ("PPD", "REVERSAL", "220")
    assert (entry.transaction_code, entry.amount, entry.account.strip()) == ("22", 4200, "000123456789")
    event = debit.events.filter(event="reversed").get()
    assert (event.from_status, event.to_status, event.reason) == ("Settled", "Reversed", reason)


@pytest.mark.parametrize(
    ("now", "allowed"),
    [
        (datetime(2026, 12, 14, 15, tzinfo=UTC), True),  # Monday 10:00 ET: the 5th banking day after the 7th
        (datetime(2026, 12, 14, 22, tzinfo=UTC), False),  # 17:00 ET, past the cut-off: it would go out on the 15th
        (datetime(2026, 12, 22, 15, tzinfo=UTC), False),
    ],
)
def test_a_reversal_goes_out_within_5_banking_days_of_settlement(api_client, settled, now, allowed):
    with time_machine.travel(now, tick=True):
        response = _reverse(api_client, settled.uuid)

    if allowed:
        assert response.status_code == 201, response.content
        return
    assert response.status_code == 409, response.content
    body = response.json()
    assert body["errors"][0]["code"] == "reversal_window_closed"
    assert "2026-12-14" in body["message"] and "refund" in body["message"]
    settled.refresh_from_db()
    assert settled.status == "Settled"
    assert Transaction.objects.count() == 1
