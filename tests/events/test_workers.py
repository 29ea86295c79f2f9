"""Concurrency on PostgreSQL with real threads and real worker processes: sequences under concurrent writers,
many workers never sending one delivery twice at once, and a worker killed mid-delivery losing nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from django.db import transaction
from django.utils import timezone
from standardwebhooks import Webhook

from events.delivery import deliveries_run
from events.models import Delivery, DeliveryAttempt, Event
from events.outbox import EventDraft, event_record, events_record
from tests import factories
from tests.concurrency import at_once
from tests.events.conftest import customer_event, worker_env

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]


def test_concurrent_writers_on_one_object_get_consecutive_sequences(company):
    owner = factories.CustomerFactory(company=company)

    def write() -> int:
        with transaction.atomic():
            return event_record(
                company_id=company.pk, type="customer.updated", object_uuid=owner.uuid, data={}
            ).sequence

    sequences = at_once(write, 8)

    assert sorted(sequences) == list(range(1, 9))
    assert sorted(Event.objects.filter(object_uuid=owner.uuid).values_list("sequence", flat=True)) == list(range(1, 9))


def test_concurrent_bulk_writers_over_the_same_objects_do_not_deadlock_or_collide(company):
    owners = [factories.CustomerFactory(company=company).uuid for _ in range(20)]

    def write() -> int:
        with transaction.atomic():
            return len(
                events_record([EventDraft(company.pk, "customer.updated", uuid, {}) for uuid in reversed(owners)])
            )

    assert at_once(write, 4) == [20] * 4
    for owner in owners:
        assert sorted(Event.objects.filter(object_uuid=owner).values_list("sequence", flat=True)) == [1, 2, 3, 4]


def test_many_workers_at_once_send_each_event_once(company, endpoint, receiver):
    owner = factories.CustomerFactory(company=company)
    with transaction.atomic():
        events_record([EventDraft(company.pk, "customer.updated", owner.uuid, {"i": i}) for i in range(120)])

    at_once(lambda: deliveries_run(batch_size=7), 4)

    ids = Counter(request.headers["webhook-id"] for request in receiver.received)
    assert len(ids) == 120 and set(ids.values()) == {1}
    assert DeliveryAttempt.objects.count() == 120
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


def test_a_worker_killed_mid_delivery_loses_nothing(company, endpoint, receiver):
    receiver.gate = threading.Event()  # the receiver holds its answer: the worker is inside the delivery
    worker = subprocess.Popen(  # noqa: S603 - our own manage.py
        [sys.executable, "manage.py", "run_worker", "--interval", "0.05", "--sweep-interval", "0.2"],
        cwd=REPO,
        env=worker_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        with transaction.atomic():
            event = customer_event(company)
        assert receiver.arrived.wait(60), "the worker never started the delivery"
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
    receiver.gate.set()
    delivery = Delivery.objects.get()
    assert delivery.status == "pending" and delivery.leased_until is not None  # claimed, never recorded

    while timezone.now() <= Delivery.objects.get().leased_until:  # the dead worker's lease runs out
        time.sleep(0.2)
    deliveries_run()  # the next worker

    delivery.refresh_from_db()
    assert delivery.status == "delivered"
    last = receiver.received[-1]
    assert Webhook(endpoint.secret).verify(last.body, last.headers)["id"] == str(event.uuid)


def test_run_worker_batch_delivers_what_was_committed_while_no_worker_ran(company, endpoint, receiver):
    with transaction.atomic():
        event = customer_event(company)
    result = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", "run_worker", "--batch"],
        cwd=REPO,
        env=worker_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert result.stdout.strip().endswith("}")
    assert [body["id"] for body in receiver.bodies()] == [str(event.uuid)]
    assert Delivery.objects.get().status == "delivered"
