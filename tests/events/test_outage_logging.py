"""A database outage in the worker is one line in its log, never a traceback (issue 25 D2: the loop logs the outage
once; tests/faults asserts a log without tracebacks after a restart and a kill -9 of PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import OperationalError
from django_tasks import TaskResultStatus, task
from django_tasks_db.models import DBTaskResult

from events.worker import WorkerLoop

pytestmark = pytest.mark.django_db


@task()
def cut_off_by_an_outage() -> None:
    raise OperationalError("consuming input failed: server closed the connection unexpectedly")


def test_a_task_cut_off_by_an_outage_is_one_warning_line_and_marked_failed(db, caplog):
    """django_tasks logs a failed task with its traceback; an outage is not a bug, so it is one line (the loop
    logs the outage itself), and the task is still recorded FAILED."""
    result = cut_off_by_an_outage.enqueue()
    loop = WorkerLoop(interval=0, sweep_interval=60, queue_names=["*"], worker_id="outage-test")
    with caplog.at_level("INFO", logger="django_tasks"):
        assert loop.run_one_task()
    assert DBTaskResult.objects.get(pk=result.id).status == TaskResultStatus.FAILED
    [record] = [r for r in caplog.records if r.name == "django_tasks" and r.levelname != "INFO"]
    assert (record.levelname, record.exc_info) == ("WARNING", None)
    assert record.getMessage().endswith("state=FAILED (the database went away: OperationalError)")
