from __future__ import annotations

import pytest

from tests.factories import CustomerFactory

ROUTING = "021000021"
OTHER_ROUTING = "011000015"


def method_body(customer, **overrides) -> dict:
    body = {
        "customerUuid": str(customer.uuid),
        "type": "bank",
        "accountType": "Checking",
        "accountNumber": "987654321012",
        "routingNumber": ROUTING,
    }
    return body | overrides


@pytest.fixture
def customer(company):
    return CustomerFactory(company=company)
