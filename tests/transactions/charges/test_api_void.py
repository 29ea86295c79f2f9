from __future__ import annotations

import uuid

import pytest

from tests import factories
from tests.concurrency import at_once
from tests.transactions.conftest import put_charge, saved_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def test_pending_transaction_is_voided(api_client, customer, saved_method):
    created = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    response = api_client.post(f"/transactions/{created['uuid']}/void")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["status"] == "Voided"
    assert data["voidedAt"].endswith("Z")
    assert api_client.get(f"/transactions/{created['uuid']}").json()["data"] == data
    assert Transaction.objects.get().voided_at is not None


def test_voiding_twice_is_409(api_client, customer, saved_method):
    created = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    api_client.post(f"/transactions/{created['uuid']}/void")
    response = api_client.post(f"/transactions/{created['uuid']}/void")
    assert response.status_code == 409
    assert "Pending" in response.json()["message"]


@pytest.mark.parametrize("status", ["Processing", "Settled", "Returned", "HELD", "DECLINED", "Reversed"])
def test_only_pending_can_be_voided(api_client, company, status):
    txn = factories.TransactionFactory(company=company, status=status)
    response = api_client.post(f"/transactions/{txn.uuid}/void")
    assert response.status_code == 409
    txn.refresh_from_db()
    assert (txn.status, txn.voided_at) == (status, None)


def test_rtp_settled_at_creation_cannot_be_voided(api_client, customer, saved_method):
    created = put_charge(api_client, saved_charge(customer, saved_method, method="RTP")).json()["data"]
    assert api_client.post(f"/transactions/{created['uuid']}/void").status_code == 409


def test_void_of_another_companys_transaction_is_404(api_client, other_company):
    txn = factories.TransactionFactory(company=other_company)
    response = api_client.post(f"/transactions/{txn.uuid}/void")
    assert response.status_code == 404
    assert response.json()["message"] == "Transaction not found"
    txn.refresh_from_db()
    assert txn.status == "Pending"


def test_void_of_unknown_transaction_is_404(api_client):
    assert api_client.post(f"/transactions/{uuid.uuid4()}/void").status_code == 404


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_voids_void_once():
    from rest_framework.test import APIClient

    company = factories.CompanyFactory()
    key = factories.issue_api_key(company)
    txn = factories.TransactionFactory(company=company)

    def void() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        return client.post(f"/transactions/{txn.uuid}/void").status_code

    statuses = at_once(void, 6)
    assert sorted(statuses) == [200] + [409] * 5
