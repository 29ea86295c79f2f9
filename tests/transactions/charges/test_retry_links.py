"""A re-presentment and the debit it presents again know each other (CONTRACT 15, 2026-12-07; newcomer review
2026-12-07 D3): the re-presentment's `retryOf` names the first presentment, and a returned presentment's
`retry.transactionUuid` names the debit that re-presented it, on the record, in the events, in reporting and as
links on both admin pages."""

from __future__ import annotations

import csv
import io

import pytest
from django.urls import reverse

from accounts.models import User
from events.models import Event
from tests import factories
from tests.reporting.conftest import report
from tests.transactions.risk.test_retry import _return, retry, returned_debit
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


@pytest.fixture
def method(company):
    return factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))


@pytest.fixture
def chain(api_client, method):
    """A first presentment returned R01, its re-presentment returned R09, and the second re-presentment."""
    original = returned_debit(method, "R01", amount=4321, standard_entry_class_code="PPD")
    first = Transaction.objects.get(uuid=_made(retry(api_client, original)))
    _return(first, "R09")
    second = Transaction.objects.get(uuid=_made(retry(api_client, first)))
    return original, first, second


def _made(response) -> str:
    assert response.status_code == 201, response.content
    return response.json()["data"]["uuid"]


def _record(client, txn: Transaction) -> dict:
    response = client.get(f"/transactions/{txn.uuid}")
    assert response.status_code == 200, response.content
    return response.json()["data"]


def test_each_re_presentment_names_the_first_presentment_and_each_return_its_re_presentment(api_client, chain):
    original, first, second = chain

    assert _record(api_client, original)["retryOf"] is None
    assert _record(api_client, original)["retry"]["transactionUuid"] == str(first.uuid)
    assert _record(api_client, first)["retryOf"] == str(original.uuid)
    assert _record(api_client, first)["retry"]["transactionUuid"] == str(second.uuid)
    assert _record(api_client, second)["retryOf"] == str(original.uuid)
    assert _record(api_client, second)["retry"] is None  # not returned: no next presentment to speak of


def test_a_returned_debit_not_yet_re_presented_names_none(api_client, method):
    returned = returned_debit(method, "R01")

    assert _record(api_client, returned)["retry"]["transactionUuid"] is None


def test_the_re_presentments_events_carry_retry_of(chain):
    original, first, second = chain

    for made in (first, second):
        created = Event.objects.filter(object_uuid=made.uuid, type="transaction.created").get()
        assert created.data["retryOf"] == str(original.uuid)


def test_reporting_has_retry_of_as_a_column_and_a_filter(api_client, chain, method):
    original, first, second = chain
    returned_debit(method, "R01")  # another first presentment, never re-presented

    response = report(api_client, retryof=str(original.uuid), columns="uuid,retryOf", sort="id", sortDir="ASC")

    assert response.status_code == 200, response.content
    assert [(row["uuid"], row["retryOf"]) for row in response.json()["data"]] == [
        (str(first.uuid), str(original.uuid)),
        (str(second.uuid), str(original.uuid)),
    ]
    nulls = report(api_client, **{"retryof:null": "", "columns": "uuid"}).json()["data"]
    assert str(original.uuid) in {row["uuid"] for row in nulls} and str(first.uuid) not in {r["uuid"] for r in nulls}
    csv_response = report(
        api_client, format="csv", page=None, pageSize=None, retryof=str(original.uuid), columns="uuid,retryOf"
    )
    rows = list(csv.DictReader(io.StringIO(b"".join(csv_response.streaming_content).decode())))
    assert [row["retryOf"] for row in rows] == [str(original.uuid)] * 2


def test_both_admin_pages_link_to_each_other(client, chain):
    original, first, second = chain
    client.force_login(User.objects.create_superuser(email="support@example.com", password="x" * 12))

    def page(txn: Transaction) -> str:
        response = client.get(reverse("admin:transactions_transaction_change", args=[txn.pk]))
        assert response.status_code == 200
        return response.content.decode()

    def link(txn: Transaction) -> str:
        return f'href="{reverse("admin:transactions_transaction_change", args=[txn.pk])}"'

    assert link(first) in page(original)  # re-presented by
    assert link(original) in page(first) and link(second) in page(first)  # re-presents, re-presented by
    assert link(original) in page(second)
