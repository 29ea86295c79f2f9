"""Prenotes and micro-deposits play out in the sandbox; only the sandbox shows the micro-deposit amounts."""

from __future__ import annotations

import pytest

from tests import factories
from tests.transactions.sandbox.conftest import advance, ok, saved_account

pytestmark = pytest.mark.django_db


def _validate(client, customer_uuid: str, method_uuid: str, kind: str):
    path = f"/customers/{customer_uuid}/payment-methods/{method_uuid}/validate"
    return client.post(path, {"method": kind}, format="json")


def _method(client, customer_uuid: str, method_uuid: str) -> dict:
    return ok(client.get(f"/customers/{customer_uuid}/payment-methods/{method_uuid}"))


def test_sandbox_microdeposits_answer_their_amounts_and_confirm_with_them(sandbox_client):
    customer_uuid, method_uuid = saved_account(sandbox_client, "123456789")

    started = ok(_validate(sandbox_client, customer_uuid, method_uuid, "microdeposits"), 202)

    amounts = started["testAmounts"]
    assert len(amounts) == 2 and all(1 <= amount <= 99 for amount in amounts)
    advance(sandbox_client, 1)
    path = f"/customers/{customer_uuid}/payment-methods/{method_uuid}/validate/confirm"
    confirmed = ok(sandbox_client.post(path, {"amounts": amounts}, format="json"))
    assert confirmed["validationStatus"] == "validated"


def test_a_live_company_never_sees_the_amounts(api_client, company):
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    started = ok(_validate(api_client, str(customer.uuid), str(method.uuid), "microdeposits"), 202)
    assert "testAmounts" not in started


def test_a_prenote_validates_after_three_banking_days(sandbox_client):
    customer_uuid, method_uuid = saved_account(sandbox_client, "123456789")
    started = ok(_validate(sandbox_client, customer_uuid, method_uuid, "prenote"), 202)
    assert "testAmounts" not in started

    advance(sandbox_client, 2)
    assert _method(sandbox_client, customer_uuid, method_uuid)["validationStatus"] == "pending"
    advance(sandbox_client, 4)
    assert _method(sandbox_client, customer_uuid, method_uuid)["validationStatus"] == "validated"


def test_a_prenote_to_a_magic_return_number_fails_the_validation(sandbox_client):
    customer_uuid, method_uuid = saved_account(sandbox_client, "00055503")
    ok(_validate(sandbox_client, customer_uuid, method_uuid, "prenote"), 202)

    advance(sandbox_client, 3)

    assert _method(sandbox_client, customer_uuid, method_uuid)["validationStatus"] == "failed"
