"""Fixtures for charge tests: a customer with a saved bank method, and a charge helper."""

from __future__ import annotations

import pytest

from tests import factories

ROUTING = "021000021"
VISA = "4111111111111111"


@pytest.fixture
def customer(company):
    return factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")


@pytest.fixture
def saved_method(customer):
    return factories.PaymentMethodFactory(
        customer=customer, account_number="000123456789", routing_number=ROUTING, account_type="Savings"
    )


def bank_details(**overrides) -> dict:
    details = {
        "name": "Grace Hopper",
        "accountType": "Checking",
        "accountNumber": "987654321",
        "routingNumber": ROUTING,
    }
    details.update(overrides)
    return details


def card_details(**overrides) -> dict:
    details = {"name": "Grace Hopper", "cardNumber": VISA, "expirationDate": "12/39", "cvv": "123"}
    details.update(overrides)
    return details


def saved_charge(customer, payment_method, **overrides) -> dict:
    """A saved-method charge; bank charges carry paymentDetails (SPEC 4.7 rule 2), which the saved method replaces."""
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1500,
        "customerUuid": str(customer.uuid),
        "paymentMethodUuid": str(payment_method.uuid),
    }
    body.update(overrides)
    if body["method"] != "CRD":
        body.setdefault("paymentDetails", bank_details())
    return body


def put_charge(client, body, **headers):
    return client.put("/transactions", body, format="json", **headers)
