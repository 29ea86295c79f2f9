"""GET /transactions/{uuid}/events: a transaction's trail, oldest first, through every kind of caller (API
route, ops command, admin action); its denials; and the admin page that shows it inline."""

from __future__ import annotations

from datetime import UTC, timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.actions import Action
from accounts.models import User
from tests import factories
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


def _events(client, uuid, **params) -> list[dict]:
    response = client.get(f"/transactions/{uuid}/events", params)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def _moves(events: list[dict]) -> list[tuple]:
    return [
        (event["event"], event["fromStatus"], event["toStatus"], event["caller"], event["actor"]) for event in events
    ]


def _iso(moment) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_charge_then_void_lists_both_changes_oldest_first(api_client, issued_key):
    uuid = put_charge(api_client, {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": bank_details()})
    uuid = uuid.json()["data"]["uuid"]
    assert api_client.post(f"/transactions/{uuid}/void").status_code == 200
    events = _events(api_client, uuid)
    key = f"api_key:{issued_key.api_key.pk}"
    assert _moves(events) == [
        ("created", None, "Pending", "api", key),
        ("voided", "Pending", "Voided", "api", key),
    ]
    assert set(events[0]) == {"event", "fromStatus", "toStatus", "caller", "actor", "reason", "at"}
    assert events[0]["at"] <= events[1]["at"] and events[1]["at"].endswith("Z")


def test_a_held_charge_released_then_originated_settled_and_returned(api_client, company, tmp_path, settings):
    settings.OUTBOUND_DIR = tmp_path / "outbound"
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": company.merchant_settings.hold_over + 1,
        "paymentDetails": bank_details(),
    }
    uuid = put_charge(api_client, body).json()["data"]["uuid"]
    assert run("release_holds", "--uuid", uuid)["released"] == 1
    # A week on: the entry is due whatever today is (next-day by default, holidays included).
    now = timezone.now() + timedelta(days=7)
    assert run("originate", "--at", _iso(now))["transactions"] == 1
    txn = Transaction.objects.get(uuid=uuid)
    settle_at = txn.expected_to_settle_at + timedelta(seconds=1)
    assert run("settle", "--at", _iso(settle_at))["transactions"] == 1
    txn.refresh_from_db()
    returns = tmp_path / "returns.ach"
    returns.write_text(return_file_for([(txn, "R01", {})], at=settle_at))
    assert run("import_returns", str(returns), "--at", _iso(settle_at + timedelta(hours=12)))["returns"] == 1

    events = _events(api_client, uuid)
    assert [move[:3] for move in _moves(events)] == [
        ("created", None, "HELD"),
        ("released", "HELD", "Pending"),
        ("originated", "Pending", "Processing"),
        ("settled", "Processing", "Settled"),
        ("returned", "Settled", "Returned"),
    ]
    assert [(event["caller"], event["actor"]) for event in events[1:]] == [
        ("command", "release_holds"),
        ("command", "originate"),
        ("command", "settle"),
        ("command", "import_returns"),
    ]
    assert events[0]["reason"] and events[-1]["reason"].startswith("R01 ")


def test_another_companys_transaction_is_404(api_client, other_company):
    txn = factories.TransactionFactory(company=other_company)
    response = api_client.get(f"/transactions/{txn.uuid}/events")
    assert response.status_code == 404
    assert response.json()["message"] == "Transaction not found"


def test_unknown_transaction_is_404_and_a_bad_uuid_4xx(api_client):
    assert api_client.get("/transactions/00000000-0000-4000-8000-000000000000/events").status_code == 404
    assert api_client.get("/transactions/not-a-uuid/events").status_code == 404


def test_without_credentials_is_401(anonymous_client, company):
    txn = factories.TransactionFactory(company=company)
    assert anonymous_client.get(f"/transactions/{txn.uuid}/events").status_code == 401


def test_a_key_without_view_transactions_is_403(company):
    txn = factories.TransactionFactory(company=company)
    issued = factories.issue_api_key(company, actions=[Action.CREATE_TRANSACTION])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued.authorization)
    assert client.get(f"/transactions/{txn.uuid}/events").status_code == 403


def test_a_reporting_user_reads_the_trail(company):
    user = factories.UserFactory()
    factories.membership(user, company, "reporting")
    login = APIClient().post("/auth/login", {"email": user.email, "password": "correct horse battery"}, format="json")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['data']['accessToken']}")
    txn = factories.TransactionFactory(company=company)
    assert [event["event"] for event in _events(client, txn.uuid, entityUuid=company.uuid)] == ["created"]


def test_admin_actions_are_recorded_and_the_admin_page_shows_the_trail(client, api_client):
    operator = User.objects.create_superuser(email="ops@example.com", password="x" * 12)
    client.force_login(operator)
    body = {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": bank_details()}
    txn = Transaction.objects.get(uuid=put_charge(api_client, body).json()["data"]["uuid"])
    changelist = "/admin/transactions/transaction/"
    action = {"action": "reject_transactions", "_selected_action": [txn.pk], "post": "yes", "reason": "payer called"}
    assert client.post(changelist, action).status_code == 302
    events = _events(api_client, txn.uuid)
    assert _moves(events)[-1] == ("rejected", "Pending", "Rejected", "admin", f"user:{operator.pk}")
    assert events[-1]["reason"] == "payer called"

    page = client.get(f"{changelist}{txn.pk}/change/").content.decode()
    assert "payer called" in page and "rejected" in page and operator.email in page
