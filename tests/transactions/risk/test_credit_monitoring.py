"""Credit-side fraud monitoring (Nacha 2.2.4; CONTRACT 12; ACH review section 4): a company's rules hold a credit
(HELD, holdCode NEW) to an account added or changed within N banking days, or over a receiver's velocity; the
ordinary hold release sends it on."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests import factories
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions.models import ChangeNotice, Transaction

pytestmark = pytest.mark.django_db

PAYEE = {"accountNumber": "55554444", "routingNumber": "021000021"}


def _rules(company, **fields) -> None:
    for name, value in fields.items():
        setattr(company.merchant_settings, name, value)
    company.merchant_settings.save(update_fields=list(fields))


def _credit(client, amount: int = 1500, **details) -> dict:
    body = {
        "method": "ACH",
        "type": "Credit",
        "amount": amount,
        "standardEntryClassCode": "PPD",
        "paymentDetails": bank_details(**(PAYEE | details)),
    }
    response = put_charge(client, body)
    assert response.status_code == 201, response.content
    return response.json()["data"]


def _aged(method, days: int):
    method.created_at = timezone.now() - timedelta(days=days)
    method.save(update_fields=["created_at"])
    return method


def _paid_before(company, days: int) -> None:
    """A credit the company sent to PAYEE `days` ago."""
    factories.TransactionFactory(
        company=company,
        type="Credit",
        account_number=PAYEE["accountNumber"],
        routing_number=PAYEE["routingNumber"],
        created_at=timezone.now() - timedelta(days=days),
        status="Settled",
    )


def test_a_credit_to_a_method_added_within_the_window_is_held_new(api_client, company, customer, saved_method):
    _rules(company, credit_hold_new_account_days=3)

    data = put_charge(api_client, saved_charge(customer, saved_method, type="Credit", standardEntryClassCode="PPD"))

    body = data.json()["data"]
    assert (body["status"], body["holdCode"]) == ("HELD", "NEW")
    assert body["holdReason"] == "credit to an account added or changed within 3 banking days"


def test_a_credit_to_an_older_method_goes_out(api_client, company, customer, saved_method):
    _rules(company, credit_hold_new_account_days=3)
    _aged(saved_method, days=30)

    body = put_charge(api_client, saved_charge(customer, saved_method, type="Credit", standardEntryClassCode="PPD"))

    assert body.json()["data"]["status"] == "Pending"


def test_a_noc_correction_within_the_window_makes_an_older_method_new_again(
    api_client, company, customer, saved_method
):
    _rules(company, credit_hold_new_account_days=3)
    _aged(saved_method, days=30)
    corrected = factories.TransactionFactory(company=company, customer=customer, payment_method=saved_method)
    now = timezone.now()
    ChangeNotice.objects.create(
        company=company, transaction=corrected, change_code="C01", change_reason="account", changed_at=now,
        noc_received_at=now,
    )  # fmt: skip

    body = put_charge(api_client, saved_charge(customer, saved_method, type="Credit", standardEntryClassCode="PPD"))

    assert (body.json()["data"]["status"], body.json()["data"]["holdCode"]) == ("HELD", "NEW")


def test_a_one_off_credit_to_an_account_never_paid_is_held_and_one_paid_long_ago_is_not(api_client, company):
    _rules(company, credit_hold_new_account_days=5)
    assert _credit(api_client)["holdCode"] == "NEW"

    _paid_before(company, days=30)

    assert _credit(api_client)["status"] == "Pending"


def test_credits_over_the_receivers_amount_velocity_are_held(api_client, company):
    _rules(company, credit_velocity_amount=5000, credit_velocity_days=1)

    first = _credit(api_client, amount=3000)
    second = _credit(api_client, amount=2500)
    elsewhere = _credit(api_client, amount=2500, accountNumber="99998888")

    assert first["status"] == "Pending"
    assert (second["status"], second["holdCode"]) == ("HELD", "NEW")
    assert second["holdReason"] == "credits to this account would reach 5500 cents in 1 day (limit 5000)"
    assert elsewhere["status"] == "Pending"  # velocity is per receiver account


def test_credits_over_the_receivers_count_velocity_are_held(api_client, company):
    _rules(company, credit_velocity_count=2, credit_velocity_days=7)

    statuses = [_credit(api_client, amount=100 + n)["status"] for n in range(3)]

    assert statuses == ["Pending", "Pending", "HELD"]


def test_debits_are_not_credit_monitored(api_client, company):
    _rules(company, credit_hold_new_account_days=3, credit_velocity_count=0)

    body = put_charge(api_client, {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": bank_details()})

    assert body.json()["data"]["status"] == "Pending"


def test_a_new_account_hold_is_released_through_the_ordinary_hold_release(api_client, company):
    _rules(company, credit_hold_new_account_days=3)
    held = _credit(api_client)

    summary = run("release_holds", "--uuid", held["uuid"])

    assert summary["released"] == 1
    txn = Transaction.objects.get(uuid=held["uuid"])
    assert txn.status == "Pending" and txn.hold.released_at is not None


def test_rules_are_off_by_default(api_client, company):
    assert _credit(api_client)["status"] == "Pending"
