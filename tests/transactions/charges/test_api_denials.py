"""401, 403 and another company's transaction (404) on every charge route."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP, Action
from accounts.models import ActionGroup
from accounts.selectors import clear_action_group_cache
from tests import factories
from tests.transactions.conftest import bank_details, put_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

CHARGE = {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": bank_details()}


def test_charge_without_credentials_is_401(anonymous_client):
    response = put_charge(anonymous_client, CHARGE)
    assert response.status_code == 401
    assert response.json()["status"] == "error"
    assert not Transaction.objects.exists()


def test_charge_with_unknown_key_is_401():
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic dmtfYWJjZGVmX25vcGU6")
    assert put_charge(client, CHARGE).status_code == 401


@pytest.mark.parametrize("path", ["/transactions/{}", "/transactions/{}/void"])
def test_reads_and_void_without_credentials_are_401(anonymous_client, company, path):
    txn = factories.TransactionFactory(company=company)
    method = anonymous_client.get if path.endswith("}") else anonymous_client.post
    assert method(path.format(txn.uuid)).status_code == 401


def test_api_key_without_create_transaction_is_403(api_client):
    ActionGroup.objects.update_or_create(
        name=LIVE_API_KEY_GROUP, defaults={"actions": [a for a in ALL_ACTIONS if a != Action.CREATE_TRANSACTION]}
    )
    clear_action_group_cache()
    response = put_charge(api_client, CHARGE)
    assert response.status_code == 403
    assert not Transaction.objects.exists()


def test_reporting_user_may_read_but_not_charge(company):
    user = factories.UserFactory()
    factories.membership(user, company, "reporting")
    login = APIClient().post("/auth/login", {"email": user.email, "password": "correct horse battery"}, format="json")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['data']['accessToken']}")
    txn = factories.TransactionFactory(company=company)
    assert client.put(f"/transactions?entityUuid={company.uuid}", CHARGE, format="json").status_code == 403
    assert client.post(f"/transactions/{txn.uuid}/void?entityUuid={company.uuid}").status_code == 403
    assert client.get(f"/transactions/{txn.uuid}?entityUuid={company.uuid}").status_code == 200


def test_another_companys_transaction_is_404(api_client, other_company):
    txn = factories.TransactionFactory(company=other_company)
    response = api_client.get(f"/transactions/{txn.uuid}")
    assert response.status_code == 404
    assert response.json()["message"] == "Transaction not found"


def test_unknown_and_malformed_transaction_uuid_is_404(api_client):
    assert api_client.get(f"/transactions/{uuid.uuid4()}").status_code == 404
    response = api_client.get("/transactions/not-a-uuid")
    assert response.status_code == 404
    assert response.json()["status"] == "error"
