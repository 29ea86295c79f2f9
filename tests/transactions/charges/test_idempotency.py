"""Idempotency-Key (CONTRACT 6): replay within 24 h, 409 on another body, safe under concurrent retries."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from idempotency.models import IdempotencyRecord
from tests import factories
from tests.concurrency import at_once
from tests.transactions.conftest import put_charge, saved_charge
from transactions.models import Transaction


@pytest.mark.django_db
def test_same_key_and_body_replays_the_first_response(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method)
    first = put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="order-1")
    second = put_charge(api_client, dict(reversed(list(body.items()))), HTTP_IDEMPOTENCY_KEY="order-1")
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.json() == second.json()
    assert second.headers["Idempotent-Replayed"] == "true"
    assert Transaction.objects.count() == 1
    assert first.json()["data"]["idempotencyKey"] == "order-1"
    assert Transaction.objects.get().idempotency_key == "order-1"


@pytest.mark.django_db
def test_replay_is_the_first_response_even_after_the_transaction_changed(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method)
    first = put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="k").json()
    api_client.post(f"/transactions/{first['data']['uuid']}/void")
    assert put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="k").json() == first


@pytest.mark.django_db
def test_same_key_with_another_body_is_409(api_client, customer, saved_method):
    put_charge(api_client, saved_charge(customer, saved_method), HTTP_IDEMPOTENCY_KEY="k")
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=1), HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 409
    assert response.json()["errors"][0]["field"] == "Idempotency-Key"
    assert Transaction.objects.count() == 1


@pytest.mark.django_db
def test_without_key_each_request_is_a_new_charge(api_client, customer, saved_method):
    put_charge(api_client, saved_charge(customer, saved_method))
    put_charge(api_client, saved_charge(customer, saved_method))
    assert Transaction.objects.count() == 2


@pytest.mark.django_db
def test_keys_are_per_company(api_client, other_api_client, customer, saved_method, other_company):
    stranger = factories.CustomerFactory(company=other_company)
    their_method = factories.PaymentMethodFactory(customer=stranger)
    put_charge(api_client, saved_charge(customer, saved_method), HTTP_IDEMPOTENCY_KEY="shared")
    response = put_charge(other_api_client, saved_charge(stranger, their_method), HTTP_IDEMPOTENCY_KEY="shared")
    assert response.status_code == 201
    assert Transaction.objects.count() == 2


@pytest.mark.django_db
def test_a_failed_request_does_not_use_up_its_key(api_client, customer, saved_method):
    missing = saved_charge(customer, factories.PaymentMethodFactory.build(uuid=uuid.uuid4()))
    assert put_charge(api_client, missing, HTTP_IDEMPOTENCY_KEY="k").status_code == 404
    assert put_charge(api_client, saved_charge(customer, saved_method), HTTP_IDEMPOTENCY_KEY="k").status_code == 201
    assert IdempotencyRecord.objects.count() == 1


@pytest.mark.django_db
def test_key_older_than_24_hours_charges_again(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method)
    put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="k")
    IdempotencyRecord.objects.update(created_at=timezone.now() - timedelta(hours=25))
    response = put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response.headers
    assert Transaction.objects.count() == 2


@pytest.mark.django_db
def test_overlong_key_is_400(api_client, customer, saved_method):
    response = put_charge(api_client, saved_charge(customer, saved_method), HTTP_IDEMPOTENCY_KEY="k" * 256)
    assert response.status_code == 400
    assert not Transaction.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_concurrent_retries_make_one_transaction_and_identical_answers():
    company = factories.CompanyFactory()
    key = factories.issue_api_key(company)
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    body = saved_charge(customer, method)

    def retry() -> tuple[int, bytes]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        response = put_charge(client, body, HTTP_IDEMPOTENCY_KEY="retry-me")
        return response.status_code, response.content

    answers = at_once(retry, 10)
    assert len(answers) == 10
    assert {status for status, _ in answers} == {201}
    assert len({content for _, content in answers}) == 1
    assert Transaction.objects.filter(company=company).count() == 1
    assert IdempotencyRecord.objects.filter(company=company).count() == 1
