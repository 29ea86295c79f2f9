"""Debits under mandates (CONTRACT 14): a charge names its mandate and stays within its terms, a single mandate
allows one debit (also two at once on PostgreSQL), the company's policy `require`, and the Payment Type Code the
NACHA file carries for WEB and TEL entries under a recurring mandate, read back from the file."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import MerchantSettings
from mandates.models import Mandate
from tests import factories
from tests.concurrency import at_once
from tests.mandates.conftest import mandate_created
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge
from transactions.models import Transaction, TransactionReturn

pytestmark = pytest.mark.django_db

MONDAY_10_00 = "2031-01-06T15:00:00Z"


def debit(client, account, **fields):
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 4900,
        "customerUuid": str(account.customer.uuid),
        "paymentMethodUuid": str(account.uuid),
        "paymentDetails": bank_details(),
        **fields,
    }
    return put_charge(client, body)


def refused(response, status: int, code: str, field: str = "mandateUuid") -> None:
    assert response.status_code == status, response.content
    error = response.json()["errors"][0]
    assert (error["code"], error["field"]) == (code, field)


def test_a_debit_under_its_mandate_is_linked_to_it(api_client, account):
    mandate = mandate_created(api_client, account)
    response = debit(api_client, account, mandateUuid=mandate["mandateUuid"])
    assert response.status_code == 201, response.content
    assert str(Transaction.objects.get().mandate.uuid) == mandate["mandateUuid"]


def test_a_debit_that_names_no_mandate_under_policy_off_asks_nothing_of_mandates(api_client, account):
    statements = []

    def watch(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    mandate_created(api_client, account)  # one exists for this very method: still not read
    with connection.execute_wrapper(watch):
        assert debit(api_client, account).status_code == 201

    assert statements and not [sql for sql in statements if "mandates_mandate" in sql]
    assert Transaction.objects.get().mandate is None


def test_a_debit_above_max_amount_or_on_another_method_is_outside_its_terms(api_client, company, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    refused(debit(api_client, account, amount=5001, mandateUuid=mandate), 409, "outside_mandate_terms", "amount")
    other = factories.PaymentMethodFactory(customer=account.customer, account_number="000999888777")
    refused(debit(api_client, other, mandateUuid=mandate), 409, "outside_mandate_terms")
    refused(debit(api_client, account, mandateUuid=mandate, standardEntryClassCode="PPD"), 409, "outside_mandate_terms")
    one_off = {
        "method": "ACH",
        "type": "Debit",
        "amount": 100,
        "paymentDetails": bank_details(),
        "mandateUuid": mandate,
    }
    refused(put_charge(api_client, one_off), 409, "outside_mandate_terms")
    assert not Transaction.objects.exists()


def test_a_revoked_mandate_is_not_active(api_client, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    api_client.post(f"/mandates/{mandate}/revoke", {"reason": "payer called"}, format="json")
    response = debit(api_client, account, mandateUuid=mandate)
    refused(response, 409, "mandate_not_active")
    assert "payer called" in response.json()["message"]
    assert not Transaction.objects.exists()


def test_a_single_mandate_allows_one_debit(api_client, account):
    mandate = mandate_created(api_client, account, type="single", terms=...)["mandateUuid"]
    assert debit(api_client, account, mandateUuid=mandate).status_code == 201
    refused(debit(api_client, account, mandateUuid=mandate), 409, "mandate_not_active")
    assert Transaction.objects.count() == 1
    assert api_client.get(f"/mandates/{mandate}").json()["data"]["usedAt"] is not None


def test_a_credit_cannot_name_a_mandate_and_an_unknown_one_is_404(api_client, other_api_client, other_company, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    refused(
        debit(api_client, account, type="Credit", standardEntryClassCode="PPD", mandateUuid=mandate), 400, "invalid"
    )
    theirs = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=other_company))
    refused(debit(other_api_client, theirs, mandateUuid=mandate), 404, "not_found")  # another company's mandate
    another = factories.CustomerFactory(company=factories.CompanyFactory())
    refused(debit(api_client, account, mandateUuid=str(another.uuid)), 404, "not_found")
    assert not Transaction.objects.exists()


@pytest.fixture
def required(company):
    company.merchant_settings.mandate_policy = MerchantSettings.MandatePolicy.REQUIRE
    company.merchant_settings.save()
    return company


def test_under_policy_require_a_consumer_debit_needs_an_active_mandate(api_client, required, account):
    refused(debit(api_client, account), 409, "mandate_required")
    tel = mandate_created(
        api_client, account, standardEntryClassCode="TEL", channel="phone", ipAddress=..., userAgent=...
    )
    refused(debit(api_client, account), 409, "mandate_required")  # a TEL mandate does not cover a WEB debit
    one_off = {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": bank_details()}
    refused(put_charge(api_client, one_off), 409, "mandate_required")
    assert not Transaction.objects.exists()

    response = debit(api_client, account, standardEntryClassCode="TEL")
    assert response.status_code == 201, response.content
    assert str(Transaction.objects.get().mandate.uuid) == tel["mandateUuid"]


def test_under_policy_require_credits_and_organizations_need_none(api_client, required, company):
    business = factories.CustomerFactory(
        company=company, account_holder_type="organization", first_name="", last_name="", company_name="Beta Corp"
    )
    account = factories.PaymentMethodFactory(customer=business)
    assert debit(api_client, account).status_code == 201  # CCD
    consumer = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    assert debit(api_client, consumer, type="Credit", standardEntryClassCode="PPD").status_code == 201


def test_create_company_sets_the_mandate_policy(db):
    company_uuid = run("create_company", "--name", "Gym", "--mandate-policy", "require")["companyUuid"]
    assert MerchantSettings.objects.get(company__uuid=company_uuid).mandate_policy == "require"
    with pytest.raises(CommandError, match="mandate-policy"):
        call_command("create_company", "--name", "Gym", "--mandate-policy", "sometimes")


def _payment_types(at: str) -> dict[str, tuple[str, str]]:
    summary = run("originate", "--at", at)
    read = nacha_reader.read(Path(summary["files"][0]).read_text())
    return {entry.individual_id: (batch.sec, entry.payment_type) for batch in read.batches for entry in batch.entries}


def test_web_and_tel_entries_under_a_recurring_mandate_carry_payment_type_r(api_client, account):
    recurring_web = mandate_created(api_client, account)["mandateUuid"]
    recurring_tel = mandate_created(
        api_client, account, standardEntryClassCode="TEL", channel="phone", ipAddress=..., userAgent=...
    )["mandateUuid"]
    single_web = mandate_created(api_client, account, type="single")["mandateUuid"]
    made = {
        "recurring WEB": debit(api_client, account, mandateUuid=recurring_web),
        "recurring TEL": debit(api_client, account, mandateUuid=recurring_tel, standardEntryClassCode="TEL"),
        "single WEB": debit(api_client, account, mandateUuid=single_web),
        "no mandate": debit(api_client, account, amount=1234),
    }
    ids = {name: str(response.json()["data"]["numericId"]) for name, response in made.items()}

    found = _payment_types(MONDAY_10_00)

    assert {name: found[ids[name]] for name in made} == {
        "recurring WEB": ("WEB", "R"),
        "recurring TEL": ("TEL", "R"),
        "single WEB": ("WEB", "S"),
        "no mandate": ("WEB", "S"),
    }


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_debits_at_once_under_a_single_mandate_make_one(company, issued_key, account):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
    mandate = mandate_created(client, account, type="single")["mandateUuid"]

    def charge() -> int:
        threaded = APIClient()
        threaded.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
        return debit(threaded, account, mandateUuid=mandate).status_code

    statuses = sorted(at_once(charge, 4))

    assert statuses == [201, 409, 409, 409]
    assert Transaction.objects.filter(mandate__uuid=mandate).count() == 1
    assert Mandate.objects.get().used_at is not None


def _returned_r01(response) -> Transaction:
    """The debit a charge made, returned R01 by the bank (CONTRACT 15: it may be re-presented)."""
    assert response.status_code == 201, response.content
    txn = Transaction.objects.get(uuid=response.json()["data"]["uuid"])
    Transaction.objects.filter(pk=txn.pk).update(status="Returned")
    TransactionReturn.objects.create(
        company=txn.company,
        transaction=txn,
        return_code="R01",
        return_reason="Insufficient Funds",
        returned_at=txn.created_at,
    )
    return txn


def test_a_retry_of_a_debit_whose_mandate_was_revoked_is_refused_as_a_charge_is(api_client, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    returned = _returned_r01(debit(api_client, account, mandateUuid=mandate))
    api_client.post(f"/mandates/{mandate}/revoke", {"reason": "payer called"}, format="json")

    response = api_client.post(f"/transactions/{returned.uuid}/retry")

    refused(response, 409, "mandate_not_active")
    assert "payer called" in response.json()["message"]
    assert Transaction.objects.count() == 1


def test_a_retry_goes_under_the_first_presentments_mandate_even_a_used_single_one(api_client, account):
    single = mandate_created(api_client, account, type="single")["mandateUuid"]
    recurring = mandate_created(api_client, account)["mandateUuid"]
    made_single = debit(api_client, account, mandateUuid=single)
    made_recurring = debit(api_client, account, mandateUuid=recurring, amount=1234)
    first_single, first_recurring = _returned_r01(made_single), _returned_r01(made_recurring)

    retries = {
        name: api_client.post(f"/transactions/{first.uuid}/retry")
        for name, first in (("single", first_single), ("recurring", first_recurring))
    }

    for response in retries.values():
        assert response.status_code == 201, response.content
    made = {name: Transaction.objects.get(uuid=response.json()["data"]["uuid"]) for name, response in retries.items()}
    assert {name: str(txn.mandate.uuid) for name, txn in made.items()} == {"single": single, "recurring": recurring}
    # Sent within the 180 days a re-presentment may be sent in (Nacha 2.12.4), counted from the clock's today.
    found = _payment_types((timezone.now() + timedelta(days=5)).isoformat())
    assert found[str(made["recurring"].pk)] == ("WEB", "R")  # a recurring WEB debit's retry is recurring too
    assert api_client.get(f"/mandates/{single}").json()["data"]["status"] == "active"
