"""`run_worker`: the background worker (CONTRACT 9). Runs the tasks queued in the database backend
(django-tasks-db's own worker loop) and, every --sweep-interval seconds, sends any webhook that is due even if
its wake-up task was lost (a process killed between commit and enqueue, or a worker killed mid-task).
`--batch` runs everything due now and exits (ops and tests). Many workers may run at once."""

from __future__ import annotations

import json
import time

from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string
from django_tasks import DEFAULT_TASK_BACKEND_ALIAS, task_backends
from django_tasks_db import DatabaseBackend
from django_tasks_db.management.commands.db_worker import Worker, valid_interval

from events.delivery import deliveries_run


class Command(BaseCommand):
    help = "Run the background worker (webhook delivery and any queued task); --batch runs what is due and exits."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", action="store_true", help="Run everything due now, then exit.")
        parser.add_argument(
            "--interval", type=valid_interval, default=0.2, help="Seconds to sleep when idle (default 0.2)."
        )
        parser.add_argument(
            "--sweep-interval",
            type=valid_interval,
            default=2.0,
            help="Seconds between sweeps for due webhooks (default 2).",
        )
        parser.add_argument("--queue-name", default="*", help="Task queues to run, comma-separated (default all).")

    def handle(self, *, batch: bool, interval: float, sweep_interval: float, queue_name: str, **options) -> None:
        uses_database_queue = isinstance(task_backends[DEFAULT_TASK_BACKEND_ALIAS], DatabaseBackend)
        worker = Worker(
            queue_names=queue_name.split(","),
            interval=0,
            batch=True,  # one pass over the ready tasks; this loop decides when to look again
            backend_name=DEFAULT_TASK_BACKEND_ALIAS,
            startup_delay=False,
            max_tasks=None,
            worker_id=get_random_string(32),
            excluded_queue_names=[],
        )
        attempts = 0
        if batch:
            if uses_database_queue:
                worker.run()
            attempts += deliveries_run()
            self.stdout.write(json.dumps({"webhookAttempts": attempts}))
            return
        worker.configure_signals()
        next_sweep = 0.0
        while worker.running:
            if uses_database_queue:
                worker.run()
            if time.monotonic() >= next_sweep:
                deliveries_run()
                next_sweep = time.monotonic() + sweep_interval
            time.sleep(interval)
