"""What the database keeps for fast filters: each company's distinct payer names (reporting.PayerName) and the
return code copied onto its transaction. Every write path must keep them, or `name:like` and `returncode` would
silently miss rows; these tests write through each path and read back through the report."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from reporting.models import PayerName
from tests import factories
from tests.concurrency import at_once
from tests.reporting.conftest import build_transaction, ids_of, report
from tests.transactions.conftest import bank_details, put_charge
from transactions.models import Transaction, TransactionReturn

pytestmark = pytest.mark.django_db


def _names(company) -> set[str]:
    return set(PayerName.objects.filter(company=company).values_list("name", flat=True))


def test_a_charged_name_is_found_by_like_at_once(api_client, company, other_company):
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details(name="Edsger Dijkstra")}
    response = put_charge(api_client, body)
    assert response.status_code == 201, response.content
    charged = Transaction.objects.get(uuid=response.json()["data"]["uuid"])
    build_transaction(other_company, name="Edsger Dijkstra")

    assert ids_of(report(api_client, **{"name:like": "dijk"})) == {charged.pk}
    assert _names(company) == {"Edsger Dijkstra"}
    assert _names(other_company) == {"Edsger Dijkstra"}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_charges_with_one_new_name_all_succeed_and_list_it_once():
    company = factories.CompanyFactory()
    key = factories.issue_api_key(company)

    def charge() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details(name="Brand New")}
        return put_charge(client, body).status_code

    assert at_once(charge, 8) == [201] * 8
    assert list(PayerName.objects.filter(company=company).values_list("name", flat=True)) == ["Brand New"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=key.authorization)
    assert len(ids_of(report(client, **{"name:like": "brand new"}))) == 8


def test_bulk_inserts_and_renames_reach_the_names(api_client, company):
    first, second = Transaction.objects.bulk_create(
        [factories.TransactionFactory.build(company=company, name=name) for name in ("Ada Lovelace", "Alan Turing")]
    )
    build_transaction(company, name="Ada Lovelace")
    assert _names(company) == {"Ada Lovelace", "Alan Turing"}

    Transaction.objects.filter(pk=second.pk).update(name="Barbara Liskov")
    assert ids_of(report(api_client, **{"name:like": "LISKOV"})) == {second.pk}
    # The old name stays listed but matches only the transactions that still carry it.
    assert ids_of(report(api_client, **{"name:like": "turing"})) == set()
    assert "Alan Turing" in _names(company)
    assert first.pk in ids_of(report(api_client, **{"name:like": "lovelace"}))


def test_like_never_reaches_another_companys_transactions(api_client, company, other_company):
    mine = build_transaction(company, name="Grace Hopper")
    build_transaction(other_company, name="Grace Hopper")
    build_transaction(other_company, name="Grace Hopperson")
    response = report(api_client, **{"name:like": "hopper"})
    assert ids_of(response) == {mine.pk}
    assert response.json()["meta"]["pagination"]["totalFilteredRows"] == 1


def test_return_code_copy_follows_the_return_record(api_client, company):
    txn = build_transaction(company)
    other = build_transaction(company)
    entry = TransactionReturn.objects.create(
        company=company, transaction=txn, return_code="R01", return_reason="Insufficient Funds",
        returned_at=txn.created_at,
    )  # fmt: skip
    assert ids_of(report(api_client, **{"returncode": "R01"})) == {txn.pk}
    assert ids_of(report(api_client, **{"returncode:nn": ""})) == {txn.pk}

    TransactionReturn.objects.filter(pk=entry.pk).update(return_code="R02")
    rows = report(api_client, columns="returnCode", **{"returncode:nn": ""}).json()["data"]
    assert [(row["numericId"], row["returnDetails"]["returnCode"]) for row in rows] == [(txn.pk, "R02")]

    TransactionReturn.objects.filter(pk=entry.pk).update(transaction=other)
    assert ids_of(report(api_client, **{"returncode": "R02"})) == {other.pk}
    assert ids_of(report(api_client, **{"returncode:null": ""})) >= {txn.pk}

    TransactionReturn.objects.filter(pk=entry.pk).delete()
    assert ids_of(report(api_client, **{"returncode:nn": ""})) == set()


@pytest.mark.usefixtures("debug_mode")
def test_seeded_rows_carry_their_copies(company):
    from django.core.management import call_command

    call_command("seed_transactions", company=str(company.uuid), count=300, verbosity=0)
    returned = Transaction.objects.filter(company=company, return_entry__isnull=False)
    assert returned.exists()
    assert set(returned.values_list("pk", "return_code")) == set(
        TransactionReturn.objects.filter(company=company).values_list("transaction_id", "return_code")
    )
    assert not Transaction.objects.filter(company=company, return_entry__isnull=True, return_code__isnull=False)
    assert _names(company) == set(Transaction.objects.filter(company=company).values_list("name", flat=True))
