"""`run_worker`: the background worker (CONTRACT 9). Runs the tasks queued in the database backend and, every
--sweep-interval seconds, sends any webhook that is due even if its wake-up task was lost (a process killed between
commit and enqueue, or a worker killed mid-task). It outlives the database and exits only on a signal
(events.worker). `--batch` runs everything due now and exits (ops and tests). Many workers may run at once."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand
from django.utils.crypto import get_random_string
from django_tasks_db.management.commands.db_worker import valid_interval

from events.worker import WorkerLoop


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
        loop = WorkerLoop(
            interval=interval,
            sweep_interval=sweep_interval,
            queue_names=queue_name.split(","),
            worker_id=get_random_string(32),
        )
        if batch:
            while loop.one_pass():
                pass
            self.stdout.write(json.dumps({"webhookAttempts": loop.done["webhookAttempts"]}))
            return
        loop.run()
