"""A replay is found by a lookup, never by a failed INSERT (issue 25 D3): no statement the database refuses, so no
ERROR line with the INSERT in PostgreSQL's log, whether the retry comes after the first answer or at the same time.
Every statement of the request goes through a wrapper that records what the database refused."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from rest_framework.test import APIClient

from tests import factories
from tests.concurrency import at_once
from tests.transactions.conftest import put_charge, saved_charge
from transactions.models import Transaction


@contextmanager
def refused_statements() -> Iterator[list[str]]:
    """Every statement this thread's connection sends in the block that the database answers with an error."""
    refused: list[str] = []

    def record(execute, sql, params, many, context):
        try:
            return execute(sql, params, many, context)
        except Exception as exc:
            refused.append(f"{type(exc).__name__}: {sql}")
            raise

    with connection.execute_wrapper(record):
        yield refused


@pytest.mark.django_db
def test_a_replay_sends_no_statement_the_database_refuses(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method)
    assert put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="order-7").status_code == 201
    with refused_statements() as refused:
        replay = put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="order-7")
        reused = put_charge(api_client, {**body, "amount": 1}, HTTP_IDEMPOTENCY_KEY="order-7")
    assert (replay.status_code, replay.headers["Idempotent-Replayed"], reused.status_code) == (201, "true", 409)
    assert refused == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_wait_for_the_first_and_replay_it_without_a_refused_statement():
    company = factories.CompanyFactory()
    key = factories.issue_api_key(company)
    customer = factories.CustomerFactory(company=company)
    body = saved_charge(customer, factories.PaymentMethodFactory(customer=customer))

    def retry() -> tuple[int, bytes, list[str]]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        with refused_statements() as refused:
            response = put_charge(client, body, HTTP_IDEMPOTENCY_KEY="at-once")
        return response.status_code, response.content, refused

    answers = at_once(retry, 8)
    assert {status for status, _, _ in answers} == {201}
    assert len({content for _, content, _ in answers}) == 1
    assert [refused for _, _, refused in answers] == [[]] * 8
    assert Transaction.objects.filter(company=company).count() == 1
