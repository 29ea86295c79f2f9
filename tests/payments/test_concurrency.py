"""Exactly one default per customer and no duplicate accounts, under real concurrent requests (PostgreSQL)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import IntegrityError, connections, transaction
from rest_framework.test import APIClient

from payments.models import PaymentMethod
from tests.factories import CustomerFactory, PaymentMethodFactory, issue_api_key
from tests.payments.conftest import method_body

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 20
URL = "/customers/payment-methods"


def _defaults(customer) -> int:
    return PaymentMethod.objects.filter(customer=customer, is_default=True, deleted_at__isnull=True).count()


def _run_at_once(authorization: str, requests: list) -> list:
    """Each request runs in its own thread with its own client and connection, released together."""
    barrier = threading.Barrier(len(requests))

    def call(request):
        verb, url, body = request
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=authorization)
        try:
            barrier.wait(timeout=30)
            return getattr(client, verb)(url, body, format="json")
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(requests)) as pool:
        return list(pool.map(call, requests))


class DefaultWatcher(threading.Thread):
    """Polls the committed default count while the requests run: every observation must be exactly one."""

    def __init__(self, customer) -> None:
        super().__init__()
        self.customer = customer
        self.seen: set[int] = set()
        self.done = threading.Event()

    def run(self) -> None:
        try:
            while not self.done.is_set():
                if PaymentMethod.objects.filter(customer=self.customer, deleted_at__isnull=True).exists():
                    self.seen.add(_defaults(self.customer))
        finally:
            connections.close_all()


@pytest.fixture
def authorization(company):
    return issue_api_key(company).authorization


def test_twenty_concurrent_first_creates_leave_exactly_one_default(company, authorization):
    customer = CustomerFactory(company=company)
    watcher = DefaultWatcher(customer)
    watcher.start()
    requests = [
        ("post", "/customers/payment-methods", method_body(customer, accountNumber=f"{40000 + i}", isDefault=False))
        for i in range(THREADS)
    ]
    try:
        responses = _run_at_once(authorization, requests)
    finally:
        watcher.done.set()
        watcher.join()
    assert [r.status_code for r in responses] == [201] * THREADS
    assert sum(r.json()["data"]["isDefault"] for r in responses) == 1
    assert _defaults(customer) == 1
    assert watcher.seen == {1}


def test_twenty_concurrent_creates_asking_for_default_leave_exactly_one(company, authorization):
    customer = CustomerFactory(company=company)
    PaymentMethodFactory(customer=customer, is_default=True)
    watcher = DefaultWatcher(customer)
    watcher.start()
    requests = [
        ("post", URL, method_body(customer, accountNumber=f"{50000 + i}", isDefault=i % 2 == 0)) for i in range(THREADS)
    ]
    try:
        responses = _run_at_once(authorization, requests)
    finally:
        watcher.done.set()
        watcher.join()
    assert [r.status_code for r in responses] == [201] * THREADS
    assert _defaults(customer) == 1
    assert watcher.seen == {1}
    # The survivor is the last one to have asked for it.
    assert PaymentMethod.objects.get(customer=customer, is_default=True).account_number in {
        f"{50000 + i}" for i in range(0, THREADS, 2)
    }


def test_twenty_concurrent_set_defaults_and_deletes_leave_exactly_one(company, authorization):
    customer = CustomerFactory(company=company)
    methods = [PaymentMethodFactory(customer=customer, is_default=i == 0) for i in range(THREADS)]
    base = f"/customers/{customer.uuid}/payment-methods"
    requests = [("post", f"{base}/{m.uuid}/set-default", None) for m in methods[: THREADS - 5]]
    requests += [("delete", f"{base}/{m.uuid}", None) for m in methods[THREADS - 5 :]]
    watcher = DefaultWatcher(customer)
    watcher.start()
    try:
        responses = _run_at_once(authorization, requests)
    finally:
        watcher.done.set()
        watcher.join()
    assert sorted(r.status_code for r in responses) == [200] * (THREADS - 5) + [204] * 5
    assert _defaults(customer) == 1
    assert watcher.seen == {1}


def test_concurrent_duplicates_give_one_201_and_409s_naming_it(company, authorization):
    customer = CustomerFactory(company=company)
    requests = [("post", "/customers/payment-methods", method_body(customer)) for _ in range(10)]
    responses = _run_at_once(authorization, requests)
    created = [r for r in responses if r.status_code == 201]
    conflicts = [r for r in responses if r.status_code == 409]
    assert len(created) == 1 and len(conflicts) == 9
    existing = created[0].json()["data"]["paymentMethodUuid"]
    assert {r.json()["data"]["paymentMethodUuid"] for r in conflicts} == {existing}
    assert {r.json()["errors"][0]["field"] for r in conflicts} == {"accountNumber"}
    assert PaymentMethod.objects.filter(customer=customer).count() == 1


def test_database_refuses_a_second_default(company):
    customer = CustomerFactory(company=company)
    PaymentMethodFactory(customer=customer, is_default=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        PaymentMethodFactory(customer=customer, is_default=True)
