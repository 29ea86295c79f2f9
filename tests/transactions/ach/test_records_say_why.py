"""F6: a returned transaction says which return and when, in its GET, its events and so its webhooks; a declined
one says why; a blocked payment method says it is blocked and by what."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from events.models import Event
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run, saved_method_txn
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

RETURN_TIME = "2026-12-08T14:00:00Z"


def _returned(tmp_path, txn, code: str):
    run("originate", "--at", MONDAY_MORNING)
    txn.refresh_from_db()
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(txn, code, {})], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    run("import_returns", str(path), "--at", RETURN_TIME)
    txn.refresh_from_db()
    return txn


def _latest_event(type: str, object_uuid) -> dict:
    return Event.objects.filter(type=type, object_uuid=object_uuid).latest("id").data


def test_a_returned_transaction_carries_its_return_in_get_and_in_its_event(api_client, company, method, tmp_path):
    txn = _returned(tmp_path, saved_method_txn(method), "R03")
    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    why = {key: record[key] for key in ("status", "returnCode", "returnReason", "returnedAt")}
    assert why == {
        "status": "Returned",
        "returnCode": "R03",
        "returnReason": "No Account/Unable to Locate Account",
        "returnedAt": "2026-12-08T14:00:00.000000Z",
    }
    event = _latest_event("transaction.returned", txn.uuid)
    assert {key: event[key] for key in why} == why  # the webhook's body is this event


def test_the_blocked_method_says_so_in_get_and_in_its_event(api_client, company, method, tmp_path):
    _returned(tmp_path, saved_method_txn(method), "R03")
    url = f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}"
    shown = api_client.get(url).json()["data"]
    assert shown["blocked"] is True and shown["blockedAt"] is not None
    assert shown["blockedReason"].startswith("R03")
    event = _latest_event("payment_method.blocked", method.uuid)
    assert (event["blocked"], event["blockedReason"]) == (True, shown["blockedReason"])


def test_a_transaction_that_was_not_returned_has_null_return_fields_and_an_open_method(api_client, company, method):
    txn = saved_method_txn(method)
    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    assert (record["returnCode"], record["returnReason"], record["returnedAt"]) == (None, None, None)
    shown = api_client.get(f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}").json()["data"]
    assert (shown["blocked"], shown["blockedAt"], shown["blockedReason"]) == (False, None, None)


def test_a_declined_charge_says_why(api_client, company):
    body = {
        "method": "ACH",
        "type": "Credit",
        "amount": company.merchant_settings.decline_over + 1,
        "paymentDetails": {
            "name": "Grace Hopper",
            "accountType": "Checking",
            "accountNumber": "987654321",
            "routingNumber": "021000021",
        },
    }
    record = api_client.put("/transactions", body, format="json").json()["data"]
    assert record["status"] == "DECLINED" and record["failureReason"]
    assert _latest_event("transaction.declined", record["uuid"])["failureReason"] == record["failureReason"]


def test_a_late_return_also_carries_its_code(api_client, company, tmp_path):
    txn = bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", "2026-12-07T22:00:01Z")
    txn.refresh_from_db()
    path = tmp_path / "late.ach"
    path.write_text(return_file_for([(txn, "R10", {})], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    run("import_returns", str(path), "--at", RETURN_TIME)
    event = _latest_event("transaction.late_returned", txn.uuid)
    assert event["returnCode"] == "R10" and event["returnedAt"] == "2026-12-08T14:00:00.000000Z"
