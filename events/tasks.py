"""Background work through Django's tasks interface (the django-tasks backport): the database backend
(django-tasks-db) by default, any other backend (RQ, Celery) by setting TASKS."""

from __future__ import annotations

from django_tasks import task

from events.delivery import deliveries_run


@task()
def deliver_webhooks() -> int:
    """Deliver every webhook that is due; enqueued after each commit that owes deliveries and for retries."""
    return deliveries_run()
