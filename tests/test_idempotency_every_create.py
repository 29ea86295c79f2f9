"""Idempotency-Key on every POST that creates (CONTRACT 6, issue 25): a retry with the same key and body within 24 h
gets the first answer again, byte for byte, and creates nothing more; the same key with another body (or on another
route) is 409 and creates nothing. Charges (PUT /transactions) have their own tests in tests/transactions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from customers.models import Customer
from events.models import WebhookEndpoint
from idempotency.models import IdempotencyRecord
from mandates.models import Mandate
from payments.models import PaymentMethod
from tests import factories
from tests.mandates.conftest import mandate_body
from tests.transactions.risk.test_retry import returned_debit
from transactions.models import AccountValidation, Transaction

pytestmark = pytest.mark.django_db

RECEIVER = "http://127.0.0.1:9/hooks"


@dataclass
class Route:
    """A creating route as a client sees it: where to POST, a body, another body, and what it creates."""

    path: str
    body: dict
    other_path: str  # the same key sent here (another body, or another object's route) is 409
    other_body: dict
    created: Callable[[], int]
    status: int = 201


def _customers(company) -> Route:
    return Route(
        "/customers",
        {"firstName": "Ada", "lastName": "Lovelace"},
        "/customers",
        {"firstName": "Grace", "lastName": "Hopper"},
        lambda: Customer.objects.count(),
    )


def _payment_methods(company) -> Route:
    customer = factories.CustomerFactory(company=company)
    body = {
        "customerUuid": str(customer.uuid),
        "type": "bank",
        "accountType": "Checking",
        "accountNumber": "000123456789",
        "routingNumber": "021000021",
    }
    return Route(
        "/customers/payment-methods",
        body,
        "/customers/payment-methods",
        {**body, "accountNumber": "000987654321"},
        lambda: PaymentMethod.objects.count(),
    )


def _webhook_endpoints(company) -> Route:
    return Route(
        "/webhooks/endpoints",
        {"url": RECEIVER, "eventTypes": ["*"]},
        "/webhooks/endpoints",
        {"url": RECEIVER, "eventTypes": ["customer.created"]},
        lambda: WebhookEndpoint.objects.count(),
    )


def _validations(company) -> Route:
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    path = f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/validate"
    return Route(
        path,
        {"method": "prenote"},
        path,
        {"method": "microdeposits"},
        lambda: AccountValidation.objects.count(),
        status=202,
    )


def _retries(company) -> Route:
    method = factories.PaymentMethodFactory(
        customer=factories.CustomerFactory(company=company), account_number="000123456789"
    )
    first, second = (returned_debit(method, "R01", amount=amount) for amount in (4321, 1234))
    return Route(
        f"/transactions/{first.uuid}/retry",
        {},
        f"/transactions/{second.uuid}/retry",
        {},
        lambda: Transaction.objects.count(),
    )


def _mandates(company) -> Route:
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    body = mandate_body(method)
    return Route(
        f"/customers/{method.customer.uuid}/mandates",
        body,
        f"/customers/{method.customer.uuid}/mandates",
        {**body, "type": "single"},
        lambda: Mandate.objects.count(),
    )


ROUTES = {
    "customers": _customers,
    "payment methods": _payment_methods,
    "webhook endpoints": _webhook_endpoints,
    "validations": _validations,
    "retries": _retries,
    "mandates": _mandates,
}


@pytest.fixture(params=list(ROUTES))
def route(request, company, settings) -> Route:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    return ROUTES[request.param](company)


def _post(client, path: str, body: dict, key: str | None):
    headers = {} if key is None else {"HTTP_IDEMPOTENCY_KEY": key}
    return client.post(path, body, format="json", **headers)


def test_the_same_key_and_body_replays_the_first_answer_and_creates_once(api_client, route):
    before = route.created()
    first = _post(api_client, route.path, route.body, "retry-1")
    replay = _post(api_client, route.path, dict(reversed(list(route.body.items()))), "retry-1")

    assert first.status_code == route.status, first.content
    assert (replay.status_code, replay.content) == (first.status_code, first.content)
    assert replay.headers["Idempotent-Replayed"] == "true" and "Idempotent-Replayed" not in first.headers
    assert route.created() == before + 1


def test_the_same_key_with_another_body_or_route_is_409_and_creates_nothing(api_client, route):
    first = _post(api_client, route.path, route.body, "retry-2")
    assert first.status_code == route.status, first.content
    after_first = route.created()

    reused = _post(api_client, route.other_path, route.other_body, "retry-2")

    assert reused.status_code == 409
    assert reused.json()["errors"][0]["field"] == "Idempotency-Key"
    assert route.created() == after_first


def test_a_webhook_secret_is_stored_encrypted_and_replayed_in_clear(api_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    body = {"url": RECEIVER, "eventTypes": ["*"]}
    first = _post(api_client, "/webhooks/endpoints", body, "endpoint-1").json()["data"]
    replay = _post(api_client, "/webhooks/endpoints", body, "endpoint-1").json()["data"]

    assert replay["secret"] == first["secret"] == WebhookEndpoint.objects.get().secret
    assert first["secret"] not in IdempotencyRecord.objects.get().response_body
