"""The support admin: read-only, searchable by what support types, account numbers masked."""

from __future__ import annotations

import pytest

from accounts.models import User
from tests import factories
from tests.transactions.conftest import put_charge, saved_charge

pytestmark = pytest.mark.django_db

LIST = "/admin/transactions/transaction/"


@pytest.fixture
def admin_client(client):
    client.force_login(User.objects.create_superuser(email="support@example.com", password="x" * 12))
    return client


@pytest.fixture
def charged(api_client, customer, saved_method):
    return put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]


def test_list_masks_account_numbers(admin_client, charged):
    response = admin_client.get(LIST)
    assert response.status_code == 200
    page = response.content.decode()
    assert "****6789" in page
    assert "000123456789" not in page


def test_detail_page_is_read_only_and_masked(admin_client, charged):
    from transactions.models import Transaction

    txn = Transaction.objects.get()
    response = admin_client.get(f"{LIST}{txn.pk}/change/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "000123456789" not in page
    assert 'name="amount"' not in page  # no editable inputs
    assert admin_client.post(f"{LIST}{txn.pk}/change/", {"amount": 1}).status_code == 403


@pytest.mark.parametrize("term", ["uuid", "numericId", "customerUuid", "email"])
def test_search_by_what_support_types(admin_client, charged, customer, term):
    value = {
        "uuid": charged["uuid"],
        "numericId": str(charged["numericId"]),
        "customerUuid": str(customer.uuid),
        "email": customer.email,
    }[term]
    factories.TransactionFactory(company=customer.company)  # a second row the search must leave out
    response = admin_client.get(LIST, {"q": value})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1


def test_search_with_garbage_finds_nothing_without_error(admin_client, charged):
    response = admin_client.get(LIST, {"q": "zzz-not-anything"})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 0


def test_filters_by_status_and_method(admin_client, charged):
    assert admin_client.get(LIST, {"status__exact": "Pending", "method__exact": "ACH"}).context["cl"].result_count == 1
    assert admin_client.get(LIST, {"status__exact": "Settled"}).context["cl"].result_count == 0


def test_lifecycle_operator_actions_are_offered(admin_client, charged):
    from transactions.ach.admin import TRANSACTION_ACTIONS

    page = admin_client.get(LIST).content.decode()
    for action in TRANSACTION_ACTIONS:
        assert f'value="{action.__name__}"' in page
