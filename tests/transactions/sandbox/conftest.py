"""Fixtures for the sandbox: a sandbox company with its vk_test_ key, files in per-test folders that the
independent reader reads back, and helpers that drive the API as a merchant's developer would."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from tests import factories
from tests.events.conftest import receiver  # noqa: F401 (a real webhook receiver on loopback)
from tests.transactions.ach import nacha_reader

ROUTING = "021000021"


@pytest.fixture(autouse=True)
def file_dirs(settings, tmp_path):
    """Live and sandbox files go to their own folders; every file written must read back."""
    settings.OUTBOUND_DIR = tmp_path / "outbound"
    settings.SANDBOX_DIR = tmp_path / "sandbox"
    yield settings.OUTBOUND_DIR, settings.SANDBOX_DIR
    for folder in (settings.OUTBOUND_DIR, settings.SANDBOX_DIR):
        for path in folder.glob("*.ach") if folder.exists() else ():
            nacha_reader.read(path.read_text())


@pytest.fixture
def sandbox_company(db):
    return factories.CompanyFactory(name="Sandbox Merchant", is_sandbox=True)


@pytest.fixture
def sandbox_key(sandbox_company):
    return factories.issue_api_key(sandbox_company)


@pytest.fixture
def sandbox_client(sandbox_key) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=sandbox_key.authorization)
    return client


def run(command: str, *args: str) -> dict:
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue().strip())


def ok(response, status: int = 200) -> dict:
    assert response.status_code == status, response.content
    return response.json()["data"]


def saved_account(client: APIClient, account_number: str, *, first_name: str = "Ada", last_name: str = "Lovelace"):
    """A consumer customer and a saved checking account, made through the API: (customerUuid, paymentMethodUuid)."""
    customer = ok(
        client.post(
            "/customers",
            {"firstName": first_name, "lastName": last_name, "email": f"{account_number}@example.com"},
            format="json",
        ),
        201,
    )
    method = ok(
        client.post(
            "/customers/payment-methods",
            {
                "customerUuid": customer["customerUuid"],
                "type": "bank",
                "accountType": "Checking",
                "accountNumber": account_number,
                "routingNumber": ROUTING,
            },
            format="json",
        ),
        201,
    )
    return customer["customerUuid"], method["paymentMethodUuid"]


def charge(client: APIClient, customer_uuid: str, method_uuid: str, *, amount: int = 1500, type: str = "Debit") -> dict:
    body = {
        "method": "ACH",
        "type": type,
        "amount": amount,
        "customerUuid": customer_uuid,
        "paymentMethodUuid": method_uuid,
        "paymentDetails": {"name": "x", "accountType": "Checking", "accountNumber": "1234", "routingNumber": ROUTING},
    }
    return ok(client.put("/transactions", body, format="json"), 201)


def advance(client: APIClient, days: int) -> dict:
    return ok(client.post("/sandbox/clock/advance", {"days": days}, format="json"))


def status_of(client: APIClient, transaction_uuid: str) -> dict:
    return ok(client.get(f"/transactions/{transaction_uuid}"))
