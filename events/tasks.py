"""Background work through Django's tasks interface (the django-tasks backport): the database backend
(django-tasks-db) by default, any other backend (RQ, Celery) by setting TASKS."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.dispatch import receiver
from django_tasks import TaskResultStatus, task
from django_tasks_db import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from events.delivery import deliveries_run
from events.wakeups import deliveries_due

logger = logging.getLogger("events.tasks")


@task()
def deliver_webhooks() -> int:
    """Deliver every webhook that is due; enqueued after each commit that owes deliveries and for retries."""
    return deliveries_run()


def deliver_webhooks_soon(*, at: datetime | None = None) -> None:
    """Wake a worker (at `at`, default now). With the database backend a wake-up already waiting is enough:
    one more row per commit would only grow the task table."""
    if at is None and isinstance(deliver_webhooks.get_backend(), DatabaseBackend):
        if DBTaskResult.objects.ready().filter(task_path=deliver_webhooks.module_path).exists():
            return
    (deliver_webhooks if at is None else deliver_webhooks.using(run_after=at)).enqueue()


@receiver(deliveries_due)
def _deliveries_due(sender, *, at: datetime | None = None, **kwargs) -> None:
    deliver_webhooks_soon(at=at)


def task_results_purge(*, before: datetime) -> int:
    """Finished rows of the database task backend (each wake-up leaves one) older than `before`."""
    finished = DBTaskResult.objects.filter(
        status__in=[TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED], finished_at__lt=before
    )
    return finished.delete()[0]


def _running_past_lease(now: datetime):
    """Task rows still RUNNING a lease after they were claimed: their worker died (or lost its database) mid-task."""
    return DBTaskResult.objects.running().filter(started_at__lt=now - timedelta(seconds=settings.TASK_LEASE_SECONDS))


def tasks_stuck_count(*, now: datetime) -> int:
    """How many task rows are RUNNING past their lease now (a gauge: 0 once a worker has reclaimed them)."""
    return _running_past_lease(now).count()


def tasks_reclaim(*, now: datetime) -> int:
    """Make task rows RUNNING past their lease ready again, for the next worker to run (the tasks here may run
    twice: a delivery is claimed under its own lease). Returns how many were reclaimed."""
    reclaimed = _running_past_lease(now).update(status=TaskResultStatus.READY, started_at=None)
    if reclaimed:
        logger.warning(
            "reclaimed %d task(s) left RUNNING past their %d s lease", reclaimed, settings.TASK_LEASE_SECONDS
        )
    return reclaimed
