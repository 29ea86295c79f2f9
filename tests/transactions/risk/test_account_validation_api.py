"""The validation routes (CONTRACT 11) and the company policy on WEB debits: answers, denials, bad input."""

from __future__ import annotations

import uuid

import pytest
from django.core.management.base import CommandError
from rest_framework.test import APIClient

from accounts.actions import ALL_ACTIONS, Action
from accounts.models import Company
from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import put_charge, saved_charge
from transactions.models import AccountValidation, Transaction

pytestmark = pytest.mark.django_db

ROUTES = ("validate", "validate/confirm")
BODIES = {"validate": {"method": "prenote"}, "validate/confirm": {"amounts": [12, 34]}}


def _url(method, suffix: str = "validate") -> str:
    return f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/{suffix}"


def _validated(method):
    method.validation_status, method.validation_method = "validated", "prenote"
    method.save(update_fields=["validation_status", "validation_method"])
    return method


def _policy(company, policy: str) -> None:
    company.merchant_settings.account_validation = policy
    company.merchant_settings.save(update_fields=["account_validation"])


@pytest.mark.parametrize("suffix", ROUTES)
def test_validation_routes_without_credentials_are_401(anonymous_client, saved_method, suffix):
    response = anonymous_client.post(_url(saved_method, suffix), BODIES[suffix], format="json")
    assert response.status_code == 401
    assert not AccountValidation.objects.exists()


@pytest.mark.parametrize("suffix", ROUTES)
def test_validation_routes_need_manage_payment_methods(company, saved_method, suffix):
    scoped = factories.issue_api_key(company, actions=[a for a in ALL_ACTIONS if a != Action.MANAGE_PAYMENT_METHODS])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=scoped.authorization)
    assert client.post(_url(saved_method, suffix), BODIES[suffix], format="json").status_code == 403
    assert not AccountValidation.objects.exists()


@pytest.mark.parametrize("suffix", ROUTES)
def test_another_companys_method_is_404(other_api_client, saved_method, suffix):
    response = other_api_client.post(_url(saved_method, suffix), BODIES[suffix], format="json")
    assert response.status_code == 404
    assert response.json()["message"] == "Customer not found"
    assert not AccountValidation.objects.exists()


def test_unknown_method_of_the_customer_is_404(api_client, customer):
    url = f"/customers/{customer.uuid}/payment-methods/{uuid.uuid4()}/validate"
    response = api_client.post(url, {"method": "prenote"}, format="json")
    assert response.status_code == 404
    assert response.json()["message"] == "Payment method not found"


@pytest.mark.parametrize("body", [{}, {"method": "plaid"}, {"method": 1}, {"method": "prenote", "extra": 1}])
def test_bad_validate_body_is_400(api_client, saved_method, body):
    response = api_client.post(_url(saved_method), body, format="json")
    assert response.status_code == 400
    assert response.json()["status"] == "error"
    assert not AccountValidation.objects.exists()


@pytest.mark.parametrize(
    "body",
    [{}, {"amounts": [1]}, {"amounts": [1, 2, 3]}, {"amounts": [0, 5]}, {"amounts": [100, 5]}, {"amounts": "1,2"}],
)
def test_bad_confirm_body_is_400_naming_amounts(api_client, saved_method, body):
    run_validation = api_client.post(_url(saved_method), {"method": "microdeposits"}, format="json")
    assert run_validation.status_code == 202
    response = api_client.post(_url(saved_method, "validate/confirm"), body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"].startswith("amounts")
    assert AccountValidation.objects.get().attempts == 0


def test_a_second_validation_while_one_is_pending_is_409(api_client, saved_method):
    assert api_client.post(_url(saved_method), {"method": "prenote"}, format="json").status_code == 202
    response = api_client.post(_url(saved_method), {"method": "microdeposits"}, format="json")
    assert response.status_code == 409
    assert AccountValidation.objects.count() == 1
    assert Transaction.objects.count() == 1


def test_confirm_without_micro_deposits_pending_is_409(api_client, saved_method):
    assert api_client.post(_url(saved_method), {"method": "prenote"}, format="json").status_code == 202
    response = api_client.post(_url(saved_method, "validate/confirm"), {"amounts": [1, 2]}, format="json")
    assert response.status_code == 409


def test_blocked_method_cannot_be_validated(api_client, saved_method):
    saved_method.blocked_at = saved_method.created_at
    saved_method.save(update_fields=["blocked_at"])
    assert api_client.post(_url(saved_method), {"method": "prenote"}, format="json").status_code == 409
    assert not Transaction.objects.exists()


def test_validation_entries_are_ordinary_pending_ach_entries(api_client, saved_method):
    response = api_client.post(_url(saved_method), {"method": "microdeposits"}, format="json")
    assert response.status_code == 202
    entries = Transaction.objects.filter(account_validation__isnull=False)
    assert sorted(entries.values_list("type", flat=True)) == ["Credit", "Credit", "Debit"]
    assert {(t.method, t.status, t.entry_description) for t in entries} == {("ACH", "Pending", "ACCTVERIFY")}


def test_reporting_shows_validation_status_and_entry_description(api_client, saved_method):
    api_client.post(_url(saved_method), {"method": "prenote"}, format="json")
    response = api_client.get(
        "/reporting/transactions",
        {
            "page": 0,
            "pageSize": 10,
            "columns": "amount,entryDescription,validationStatus",
            "validationstatus": "pending",
        },
    )
    assert response.status_code == 200, response.content
    (row,) = response.json()["data"]
    assert (row["amount"], row["entryDescription"], row["validationStatus"]) == (0, "PAYMENT", "pending")


# --- the company policy on WEB debits ------------------------------------------------------------------------------


def test_off_charges_an_unvalidated_method_as_today(api_client, customer, saved_method):
    data = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    assert data["status"] == "Pending"
    assert not AccountValidation.objects.exists()


def test_require_declines_a_web_debit_to_an_unvalidated_method(api_client, company, customer, saved_method):
    _policy(company, "require")
    response = put_charge(api_client, saved_charge(customer, saved_method))
    assert response.status_code == 201
    data = response.json()["data"]
    assert (data["status"], data["failureReason"]) == ("DECLINED", "account not validated")
    assert not AccountValidation.objects.exists()


@pytest.mark.parametrize("status", ["unvalidated", "pending", "failed"])
def test_require_declines_every_state_but_validated(api_client, company, customer, saved_method, status):
    _policy(company, "require")
    saved_method.validation_status = status
    saved_method.save(update_fields=["validation_status"])
    assert put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]["status"] == "DECLINED"


def test_require_charges_a_validated_method(api_client, company, customer, saved_method):
    _policy(company, "require")
    _validated(saved_method)
    assert put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]["status"] == "Pending"


@pytest.mark.parametrize(
    "overrides",
    [
        {"type": "Credit"},
        {"standardEntryClassCode": "PPD"},
        {"standardEntryClassCode": "TEL"},
        {"method": "RTP"},
    ],
)
def test_the_policy_covers_only_ach_web_debits(api_client, company, customer, saved_method, overrides):
    _policy(company, "require")
    data = put_charge(api_client, saved_charge(customer, saved_method, **overrides)).json()["data"]
    assert data["status"] != "DECLINED"


def test_risk_decline_comes_before_the_validation_hold(api_client, company, customer, saved_method):
    _policy(company, "prenote_first")
    data = put_charge(
        api_client, saved_charge(customer, saved_method, amount=company.merchant_settings.decline_over + 1)
    ).json()["data"]
    assert data["status"] == "DECLINED"
    assert not AccountValidation.objects.exists()


def test_create_company_takes_the_account_validation_policy(db):
    created = run("create_company", "--name", "Strict", "--account-validation", "require")
    assert Company.objects.get(uuid=created["companyUuid"]).merchant_settings.account_validation == "require"
    default = run("create_company", "--name", "Lenient")
    assert Company.objects.get(uuid=default["companyUuid"]).merchant_settings.account_validation == "off"


def test_create_company_refuses_an_unknown_policy(db):
    with pytest.raises((CommandError, SystemExit)):
        run("create_company", "--name", "X", "--account-validation", "sometimes")


def test_an_inactive_customers_method_is_not_validated(api_client, customer, saved_method):
    customer.status = "inactive"
    customer.save(update_fields=["status"])
    response = api_client.post(_url(saved_method), {"method": "prenote"}, format="json")
    assert response.status_code == 400
    assert response.json()["message"] == "customer is inactive"
    assert not Transaction.objects.exists()


def test_validation_entries_are_announced_as_created_transactions(api_client, saved_method):
    api_client.post(_url(saved_method), {"method": "microdeposits"}, format="json")
    created = set(Event.objects.filter(type="transaction.created").values_list("object_uuid", flat=True))
    assert created == set(Transaction.objects.values_list("uuid", flat=True))
    assert Event.objects.filter(type="payment_method.updated", object_uuid=saved_method.uuid).count() == 1
