"""A task row left RUNNING by a worker that died mid-task (issue 25 D4) is counted as stuck once its lease has run
out, and the next worker pass runs it again."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from events.models import Delivery
from events.tasks import deliver_webhooks, tasks_stuck_count
from tests.events.conftest import customer_event

pytestmark = pytest.mark.django_db(transaction=True)


def _left_running_by_a_dead_worker(*, seconds_ago: float) -> DBTaskResult:
    row = DBTaskResult.objects.get(pk=deliver_webhooks.enqueue().id)
    row.claim("dead-worker")
    DBTaskResult.objects.filter(pk=row.pk).update(started_at=timezone.now() - timedelta(seconds=seconds_ago))
    return row


def test_a_task_running_past_its_lease_is_counted_then_run_again_by_the_next_worker(
    settings, company, endpoint, receiver
):
    settings.TASK_LEASE_SECONDS = 60
    with transaction.atomic():
        customer_event(company)
    DBTaskResult.objects.all().delete()  # only the dead worker's row
    row = _left_running_by_a_dead_worker(seconds_ago=61)
    assert tasks_stuck_count(now=timezone.now()) == 1

    call_command("run_worker", "--batch", stdout=StringIO())

    row.refresh_from_db()
    assert row.status == "SUCCESSFUL" and row.worker_ids[0] == "dead-worker" and len(row.worker_ids) == 2
    assert tasks_stuck_count(now=timezone.now()) == 0
    assert Delivery.objects.get().status == "delivered"


def test_a_task_within_its_lease_is_left_to_its_worker(settings, db):
    settings.TASK_LEASE_SECONDS = 60
    row = _left_running_by_a_dead_worker(seconds_ago=30)
    assert tasks_stuck_count(now=timezone.now()) == 0

    call_command("run_worker", "--batch", stdout=StringIO())

    row.refresh_from_db()
    assert row.status == "RUNNING" and row.worker_ids == ["dead-worker"]
