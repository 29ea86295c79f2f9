"""SPEC 4.7 rules and the order in which they answer."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from tests import factories
from tests.transactions.conftest import bank_details, card_details, put_charge, saved_charge
from transactions.charges.rules import BANK_DETAILS_REQUIRED, SMALLEST_BANK_DETAILS
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

RULE_6 = "customerUuid is required when paymentMethodUuid is provided"
RULE_5 = "payment method type is incompatible with transaction method"


def assert_error(response, status: int, message: str) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == "error"
    assert body["message"] == message
    assert not Transaction.objects.exists()


def test_payment_method_without_customer_is_rule_6(api_client, saved_method):
    body = {"method": "ACH", "type": "Debit", "amount": 100, "paymentMethodUuid": str(saved_method.uuid)}
    assert_error(put_charge(api_client, body), 400, RULE_6)


def test_rule_6_answers_before_malformed_payment_details_and_amount(api_client, saved_method):
    body = {
        "method": "CRD",
        "type": "Debit",
        "amount": "lots",
        "paymentMethodUuid": str(saved_method.uuid),
        "paymentDetails": {"accountNumber": "1"},
        "bogus": True,
    }
    assert_error(put_charge(api_client, body), 400, RULE_6)


def test_payment_details_required_without_saved_method(api_client):
    response = put_charge(api_client, {"method": "ACH", "type": "Debit", "amount": 100})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "paymentDetails"


def test_invalid_payment_details_answer_before_unknown_customer(api_client):
    body = saved_charge(
        factories.CustomerFactory.build(uuid=uuid.uuid4()),
        factories.PaymentMethodFactory.build(uuid=uuid.uuid4()),
        paymentDetails=bank_details(routingNumber="123456789"),
    )
    response = put_charge(api_client, body)
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "paymentDetails.routingNumber"


def test_partial_payment_details_with_saved_method_is_400(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method, paymentDetails={"name": "Ada"})
    response = put_charge(api_client, body)
    assert response.status_code == 400
    assert {e["field"] for e in response.json()["errors"]} >= {"paymentDetails.accountNumber"}


def test_unknown_customer_is_404(api_client, saved_method):
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 100,
        "customerUuid": str(uuid.uuid4()),
        "paymentMethodUuid": str(saved_method.uuid),
        "paymentDetails": bank_details(),
    }
    assert_error(put_charge(api_client, body), 404, "Customer not found")


def test_another_companys_customer_is_404(api_client, other_company):
    stranger = factories.CustomerFactory(company=other_company)
    method = factories.PaymentMethodFactory(customer=stranger)
    assert_error(put_charge(api_client, saved_charge(stranger, method)), 404, "Customer not found")


def test_inactive_customer_is_400_and_nothing_stored(api_client, customer, saved_method):
    customer.status = "inactive"
    customer.save()
    assert_error(put_charge(api_client, saved_charge(customer, saved_method)), 400, "customer is inactive")


def test_inactive_customer_without_saved_method_is_400(api_client, customer):
    customer.status = "inactive"
    customer.save()
    body = {"method": "ACH", "type": "Debit", "amount": 1, "customerUuid": str(customer.uuid)}
    assert_error(put_charge(api_client, {**body, "paymentDetails": bank_details()}), 400, "customer is inactive")


def test_inactive_customer_answers_before_unknown_method(api_client, customer):
    customer.status = "inactive"
    customer.save()
    body = saved_charge(customer, factories.PaymentMethodFactory.build(uuid=uuid.uuid4()))
    assert_error(put_charge(api_client, body), 400, "customer is inactive")


def test_unknown_payment_method_is_404(api_client, customer):
    body = saved_charge(customer, factories.PaymentMethodFactory.build(uuid=uuid.uuid4()))
    assert_error(put_charge(api_client, body), 404, "Payment method not found")


def test_method_of_another_customer_is_404(api_client, company, customer):
    someone_else = factories.CustomerFactory(company=company)
    their_method = factories.PaymentMethodFactory(customer=someone_else)
    assert_error(put_charge(api_client, saved_charge(customer, their_method)), 404, "Payment method not found")


def test_deleted_method_is_404(api_client, customer, saved_method):
    saved_method.deleted_at = timezone.now()
    saved_method.save()
    assert_error(put_charge(api_client, saved_charge(customer, saved_method)), 404, "Payment method not found")


def test_blocked_method_is_400_with_reason(api_client, customer, saved_method):
    saved_method.blocked_at = timezone.now()
    saved_method.blocked_reason = "R02 Account Closed"
    saved_method.save()
    response = put_charge(api_client, saved_charge(customer, saved_method))
    assert_error(response, 400, "payment method is blocked: R02 Account Closed")


@pytest.mark.parametrize("method", ["ACH", "RCC", "RTP"])
def test_saved_bank_method_works_with_bank_methods(api_client, customer, saved_method, method):
    assert put_charge(api_client, saved_charge(customer, saved_method, method=method)).status_code == 201


def test_saved_bank_method_with_card_is_rule_5(api_client, customer, saved_method):
    assert_error(put_charge(api_client, saved_charge(customer, saved_method, method="CRD")), 400, RULE_5)


def test_saved_method_with_card_details_for_crd_is_still_rule_5(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method, method="CRD", paymentDetails=card_details())
    assert_error(put_charge(api_client, body), 400, RULE_5)


def test_unknown_customer_answers_before_rule_5(api_client, saved_method):
    body = {
        "method": "CRD",
        "type": "Debit",
        "amount": 100,
        "customerUuid": str(uuid.uuid4()),
        "paymentMethodUuid": str(saved_method.uuid),
    }
    assert_error(put_charge(api_client, body), 404, "Customer not found")


def test_rule_5_answers_before_blocked(api_client, customer, saved_method):
    saved_method.blocked_at = timezone.now()
    saved_method.save()
    assert_error(put_charge(api_client, saved_charge(customer, saved_method, method="CRD")), 400, RULE_5)


@pytest.mark.parametrize("method", ["ACH", "RCC", "RTP"])
@pytest.mark.parametrize("absent", [{}, {"paymentDetails": None}], ids=["left-out", "null"])
def test_saved_bank_charge_without_payment_details_is_400_naming_it(api_client, customer, saved_method, method, absent):
    body = saved_charge(customer, saved_method, method=method)
    del body["paymentDetails"]
    response = put_charge(api_client, {**body, **absent})
    assert_error(response, 400, BANK_DETAILS_REQUIRED)
    assert "checked as an ordinary one before the saved method is loaded" in BANK_DETAILS_REQUIRED
    assert response.json()["errors"][0]["field"] == "paymentDetails"


def test_saved_bank_charge_with_valid_payment_details_charges_the_saved_account(api_client, customer, saved_method):
    response = put_charge(api_client, saved_charge(customer, saved_method, paymentDetails=bank_details()))
    assert response.status_code == 201, response.content
    assert response.json()["data"]["paymentDetails"]["accountNumber"] == "****6789"


@pytest.mark.parametrize(
    "nulls",
    [
        {"standardEntryClassCode": None},
        {"effectiveDate": None},
        {"externalUniqueId": None, "description": None},
        {"standardEntryClassCode": None, "effectiveDate": None, "externalUniqueId": None, "description": None},
    ],
)
def test_optional_field_sent_as_null_reads_as_left_out_on_rtp_charge(api_client, customer, saved_method, nulls):
    response = put_charge(api_client, saved_charge(customer, saved_method, method="RTP", **nulls))
    assert response.status_code == 201, response.content
    assert response.json()["data"]["standardEntryClassCode"] in (None, "")


def test_null_optional_field_inside_payment_details_reads_as_left_out(api_client):
    body = {"method": "CRD", "type": "Debit", "amount": 100, "paymentDetails": {**card_details(), "cvv": None}}
    assert put_charge(api_client, body).status_code == 201


def test_required_field_sent_as_null_is_still_400_naming_it(api_client, customer, saved_method):
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=None))
    assert_error(response, 400, "amount may not be null")
    assert response.json()["errors"][0]["field"] == "amount"


def _documented_saved_charge() -> str:
    """The body of docs/api.md's quickstart step 3 (a saved method's charge), as a reader copies it."""
    text = (Path(settings.BASE_DIR) / "docs" / "api.md").read_text()
    step = text[text.index("**3. Charge it**") : text.index("**4. Report**")]
    return re.search(r"-d '(.*?)'\n", step, re.S).group(1)


def test_the_documented_saved_method_charge_works_as_written(api_client, customer, saved_method):
    body = (
        _documented_saved_charge()
        .replace("'$CUSTOMER'", str(customer.uuid))
        .replace("'$METHOD'", str(saved_method.uuid))
    )
    response = api_client.put("/transactions", body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="order-1001")
    assert response.status_code == 201, response.content
    charged = Transaction.objects.get()
    assert charged.account_number == saved_method.account_number and charged.name != "x"
    assert json.loads(body)["paymentDetails"] == json.loads(SMALLEST_BANK_DETAILS)
    charges_md = (Path(settings.BASE_DIR) / "docs" / "charges.md").read_text()
    assert SMALLEST_BANK_DETAILS in charges_md and "checked as an ordinary one" in charges_md
