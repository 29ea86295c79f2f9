"""Account validation keyed on the account (CONTRACT 12; ACH review d-4, security review N2): every ACH WEB debit,
saved method or one-off `paymentDetails`, passes the company's policy for the account it debits (routing + account
number), and an account the company validated once is validated for every later debit to it."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from tests import factories
from tests.concurrency import at_once
from tests.transactions.ach.conftest import run
from tests.transactions.ach.test_account_validation import _import, _originate
from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions import calendar
from transactions.models import AccountValidation, Transaction

pytestmark = pytest.mark.django_db

ACCOUNT = {"accountNumber": "000123456789", "routingNumber": "021000021"}  # the `method` fixture's account


def _eastern(day: date, hour: int) -> str:
    moment = datetime.combine(day, time(hour), tzinfo=calendar.EASTERN).astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _policy(company, policy: str) -> None:
    company.merchant_settings.account_validation = policy
    company.merchant_settings.hold_debits_on_breach = (
        False  # one returned prenote breaches every rate: keep those holds out
    )
    company.merchant_settings.save(update_fields=["account_validation", "hold_debits_on_breach"])


def _one_off(client, customer=None, amount: int = 1500, **account) -> dict:
    body = {"method": "ACH", "type": "Debit", "amount": amount, "paymentDetails": bank_details(**(ACCOUNT | account))}
    if customer is not None:
        body["customerUuid"] = str(customer.uuid)
    response = put_charge(client, body)
    assert response.status_code == 201, response.content
    return response.json()["data"]


def _validated_by_prenote(client, method) -> None:
    url = f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/validate"
    assert client.post(url, {"method": "prenote"}, format="json").status_code == 202
    _read, day = _originate()
    run("settle", "--at", _eastern(calendar.add_business_days(day, 3), 9))
    assert AccountValidation.objects.get(payment_method=method).state == "validated"


@pytest.mark.parametrize("with_customer", [False, True])
def test_require_declines_a_one_off_web_debit_to_an_unvalidated_account(api_client, company, customer, with_customer):
    _policy(company, "require")

    data = _one_off(api_client, customer if with_customer else None)

    assert (data["status"], data["failureReason"]) == ("DECLINED", "account not validated")


def test_off_lets_a_one_off_web_debit_through(api_client, company):
    assert _one_off(api_client)["status"] == "Pending"


def test_an_account_validated_through_a_saved_method_is_validated_for_one_off_debits(
    api_client, other_api_client, company, method
):
    _policy(company, "require")
    _validated_by_prenote(api_client, method)

    assert _one_off(api_client)["status"] == "Pending"
    # The gate keys on routing + account number: the same account number at another bank is another account.
    other_bank = _one_off(api_client, routingNumber="011000015")
    assert (other_bank["status"], other_bank["failureReason"]) == ("DECLINED", "account not validated")
    # And on the company: another merchant has not validated it.
    _policy(factories.Company.objects.exclude(pk=company.pk).get(), "require")
    assert _one_off(other_api_client)["status"] == "DECLINED"


def test_an_account_validated_for_one_customer_is_validated_for_another_customers_method(api_client, company, method):
    _policy(company, "require")
    _validated_by_prenote(api_client, method)
    other = factories.CustomerFactory(company=company, first_name="Grace", last_name="Hopper")
    same_account = factories.PaymentMethodFactory(
        customer=other, account_number=ACCOUNT["accountNumber"], routing_number=ACCOUNT["routingNumber"]
    )

    assert put_charge(api_client, saved_charge(other, same_account)).json()["data"]["status"] == "Pending"


def test_prenote_first_holds_a_one_off_web_debit_and_prenotes_its_account(api_client, company):
    _policy(company, "prenote_first")

    first = _one_off(api_client, amount=2500)
    second = _one_off(api_client, amount=2600)

    assert (first["status"], first["holdCode"], second["status"]) == ("HELD", "VAL", "HELD")
    validation = AccountValidation.objects.get()  # one prenote for both debits
    assert (validation.kind, validation.payment_method_id) == ("prenote", None)
    read, day = _originate()
    (entry,) = [entry for batch in read.batches for entry in batch.entries]
    assert (entry.amount, entry.routing, entry.account) == (0, ACCOUNT["routingNumber"], ACCOUNT["accountNumber"])
    assert [batch.sec for batch in read.batches] == ["WEB"]

    run("settle", "--at", _eastern(calendar.add_business_days(day, 3), 9))

    held = Transaction.objects.filter(uuid__in=[first["uuid"], second["uuid"]])
    assert {txn.status for txn in held} == {"Pending"}
    read, _day = _originate()
    assert sorted(entry.amount for batch in read.batches for entry in batch.entries) == [2500, 2600]
    assert _one_off(api_client, amount=2700)["status"] == "Pending"  # validated for the company from now on


def test_prenote_first_declines_held_one_off_debits_when_the_prenote_is_returned(api_client, company, tmp_path):
    _policy(company, "prenote_first")
    held = _one_off(api_client)
    _read, day = _originate()
    prenote = Transaction.objects.get(account_validation__isnull=False)

    _import(tmp_path, [(prenote, "R12", {})], _eastern(calendar.add_business_days(day, 1), 10))

    txn = Transaction.objects.get(uuid=held["uuid"])
    assert (txn.status, txn.failure_reason) == ("DECLINED", "account validation failed")
    again = _one_off(api_client)
    assert (again["status"], again["failureReason"]) == ("DECLINED", "account validation failed")


def test_prenote_first_one_off_prenote_answered_by_a_noc_declines_the_held_debit(api_client, company, tmp_path):
    _policy(company, "prenote_first")
    held = _one_off(api_client)
    _read, day = _originate()
    prenote = Transaction.objects.get(account_validation__isnull=False)

    _import(
        tmp_path, [(prenote, "C01", {"accountNumber": "55555555"})], _eastern(calendar.add_business_days(day, 1), 10)
    )

    txn = Transaction.objects.get(uuid=held["uuid"])
    assert (txn.status, txn.failure_reason) == ("DECLINED", "account validation failed")
    assert AccountValidation.objects.get().failure_reason.startswith("prenote answered with a notice of change")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_one_off_debits_to_one_account_share_one_prenote():
    from rest_framework.test import APIClient

    company = factories.CompanyFactory(account_validation="prenote_first")
    key = factories.issue_api_key(company)

    def charge() -> dict:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        return _one_off(client)

    held = at_once(charge, 6)

    assert {(data["status"], data["holdCode"]) for data in held} == {("HELD", "VAL")}
    validation = AccountValidation.objects.get()
    assert (validation.kind, validation.state, validation.payment_method_id) == ("prenote", "pending", None)


@pytest.mark.parametrize(
    ("holder", "names", "sec_codes"),
    [
        ("consumer", {"first_name": "Ada", "last_name": "Lovelace"}, {"PPD"}),
        ("organization", {"first_name": "", "last_name": "", "company_name": "Beta Corp"}, {"CCD"}),
        ("", {"first_name": "", "last_name": "", "company_name": "Gamma LLC"}, {"CCD"}),
    ],
)
def test_micro_entries_go_out_ppd_or_ccd_never_web(api_client, company, holder, names, sec_codes):
    customer = factories.CustomerFactory(company=company, account_holder_type=holder, **names)
    method = factories.PaymentMethodFactory(customer=customer)
    url = f"/customers/{customer.uuid}/payment-methods/{method.uuid}/validate"
    assert api_client.post(url, {"method": "microdeposits"}, format="json").status_code == 202

    read, _day = _originate()

    assert {batch.sec for batch in read.batches} == sec_codes
    assert {batch.description for batch in read.batches} == {"ACCTVERIFY"}
