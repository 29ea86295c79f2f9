"""Background work through Django's tasks interface (the django-tasks backport): the database backend
(django-tasks-db) by default, any other backend (RQ, Celery) by setting TASKS."""

from __future__ import annotations

from datetime import datetime

from django_tasks import TaskResultStatus, task
from django_tasks_db import DatabaseBackend
from django_tasks_db.models import DBTaskResult

from events.delivery import deliveries_run


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


def task_results_purge(*, before: datetime) -> int:
    """Finished rows of the database task backend (each wake-up leaves one) older than `before`."""
    finished = DBTaskResult.objects.filter(
        status__in=[TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED], finished_at__lt=before
    )
    return finished.delete()[0]
