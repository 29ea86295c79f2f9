"""CONTRACT 14 (2026-12-07). The channel fits the SEC code (ACH review M3): WEB `online`, TEL `phone`, PPD `paper`,
CCD any. A mandate accepted after an R01/R09 return lets debits past it only with its evidence (a file for `paper`
and `phone`), only as the one mandate of that return, and its first debit cancels that return's re-presentments
still to go (security M3, ACH M2: no double debit for one obligation)."""

from __future__ import annotations

import base64
from datetime import date

import pytest
from django.utils import timezone

from tests import factories
from tests.mandates.conftest import mandate_created, mandate_post
from tests.mandates.test_charges import debit
from tests.transactions.risk.test_retry import returned_debit
from transactions.models import RetryAttempt, Transaction, TransactionReturn
from vault.records import iso_utc

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

FORM = base64.b64encode(b"%PDF-1.4 the payer's signed authorization form").decode()


@pytest.mark.parametrize(
    ("sec_code", "channel", "status"),
    [
        ("WEB", "online", 201),
        ("WEB", "paper", 400),
        ("WEB", "phone", 400),
        ("TEL", "phone", 201),
        ("TEL", "online", 400),
        ("PPD", "paper", 201),
        ("PPD", "online", 400),
        ("PPD", "phone", 400),
    ],
)
def test_the_channel_fits_the_sec_code(api_client, account, sec_code, channel, status):
    response = mandate_post(api_client, account, standardEntryClassCode=sec_code, channel=channel)

    assert response.status_code == status, response.content
    if status == 400:
        assert response.json()["errors"][0]["field"] == "channel"
        assert f"a {sec_code} authorization is given" in response.json()["message"]


@pytest.mark.parametrize("channel", ["online", "paper", "phone"])
def test_a_ccd_authorization_takes_any_channel(api_client, company, channel):
    business = factories.CustomerFactory(
        company=company, account_holder_type="organization", first_name="", last_name="", company_name="Beta Corp"
    )
    method = factories.PaymentMethodFactory(customer=business)
    assert mandate_post(api_client, method, standardEntryClassCode="CCD", channel=channel).status_code == 201


def _after_the_return(client, account, **overrides) -> str:
    body = {"standardEntryClassCode": "PPD", "channel": "paper", "acceptedAt": iso_utc(timezone.now()), **overrides}
    return mandate_created(client, account, **body)["mandateUuid"]


def _ppd_debit(client, account, mandate: str):
    return debit(client, account, standardEntryClassCode="PPD", mandateUuid=mandate)


def test_a_mandate_after_the_return_needs_its_evidence_and_lifts_that_return_once(api_client, account):
    returned = returned_debit(account, "R01", amount=4900)
    bare = _after_the_return(api_client, account)
    evidenced = _after_the_return(api_client, account, evidence=FORM)
    another = _after_the_return(api_client, account, evidence=base64.b64encode(b"another form").decode())

    without = _ppd_debit(api_client, account, bare)
    assert (without.status_code, without.json()["errors"][0]["code"]) == (409, "reinitiation_requires_retry")

    made = _ppd_debit(api_client, account, evidenced)
    assert made.status_code == 201, made.content
    assert str(TransactionReturn.objects.get(transaction=returned).reauthorized_by.uuid) == evidenced

    second = _ppd_debit(api_client, account, another)  # the return has its mandate: no other lifts it again
    assert (second.status_code, second.json()["errors"][0]["code"]) == (409, "reinitiation_requires_retry")
    assert _ppd_debit(api_client, account, evidenced).status_code == 201  # its own mandate goes on


def test_the_new_authorizations_debit_voids_the_re_presentment_made_of_that_return(api_client, account):
    returned = returned_debit(account, "R01", amount=4900, standard_entry_class_code="PPD")
    retry = api_client.post(f"/transactions/{returned.uuid}/retry").json()["data"]["uuid"]
    mandate = _after_the_return(api_client, account, evidence=FORM)

    assert _ppd_debit(api_client, account, mandate).status_code == 201

    record = api_client.get(f"/transactions/{retry}").json()["data"]
    assert record["status"] == "Voided"
    assert record["failureReason"].startswith(f"re-authorized by mandate {mandate}")


def test_the_new_authorizations_debit_cancels_the_scheduled_re_presentment(api_client, account):
    returned = returned_debit(account, "R01", amount=4900, standard_entry_class_code="PPD")
    attempt = RetryAttempt.objects.create(
        company=account.company, original=returned, returned=returned, number=1, scheduled_for=date(2026, 12, 10)
    )
    mandate = _after_the_return(api_client, account, evidence=FORM)

    assert _ppd_debit(api_client, account, mandate).status_code == 201

    attempt.refresh_from_db()
    assert (attempt.state, attempt.reason) == ("cancelled", "reauthorized")
    assert Transaction.objects.filter(retry_of=returned).count() == 0
