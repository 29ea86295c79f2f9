"""Fixtures for mandates: a consumer with a saved checking account, and the body of an online authorization."""

from __future__ import annotations

import pytest

from tests import factories

TEXT = "I authorize Acme Gym to debit my account monthly until I revoke it by writing to support@acme.test."


@pytest.fixture
def payer(company):
    return factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")


@pytest.fixture
def account(payer):
    return factories.PaymentMethodFactory(
        customer=payer, account_number="000123456789", routing_number="021000021", account_type="Checking"
    )


def mandate_body(account, **overrides) -> dict:
    """The body of an online recurring WEB authorization of `account` (a saved method, or its uuid)."""
    body = {
        "paymentMethodUuid": str(getattr(account, "uuid", account)),
        "standardEntryClassCode": "WEB",
        "type": "recurring",
        "channel": "online",
        "acceptedAt": "2026-11-20T15:04:05Z",
        "text": TEXT,
        "terms": {"maxAmount": 5000, "frequency": "monthly"},
        "ipAddress": "203.0.113.7",
        "userAgent": "Mozilla/5.0 (X11; Linux x86_64)",
    }
    body.update(overrides)
    return {name: value for name, value in body.items() if value is not ...}


def mandate_post(client, account, **overrides):
    return client.post(
        f"/customers/{account.customer.uuid}/mandates", mandate_body(account, **overrides), format="json"
    )


def mandate_created(client, account, **overrides) -> dict:
    response = mandate_post(client, account, **overrides)
    assert response.status_code == 201, response.content
    return response.json()["data"]
