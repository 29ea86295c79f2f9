"""The background worker's loop (`run_worker`, CONTRACT 9): passes over the queued tasks and the due webhooks,
forever, until a signal. It outlives its database: any database error closes the connections and the loop waits
(exponential backoff with jitter, at most WORKER_BACKOFF_MAX_SECONDS) and tries again. Its claims stay consistent
without it: a delivery's lease and a task's lease run out and another pass (this worker's or another's) takes
them again, so nothing is lost and nothing is sent twice at the same time.

Quiet when idle: one line when the database goes away and one when it is back (at most one a minute while it
stays away), and a summary of the work done at most once a minute; an idle pass writes nothing."""

from __future__ import annotations

import logging
import random
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.db import Error as DatabaseError
from django.db import close_old_connections, connections
from django.utils import timezone
from django_tasks import DEFAULT_TASK_BACKEND_ALIAS, task_backends
from django_tasks_db import DatabaseBackend
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.models import DBTaskResult
from django_tasks_db.utils import exclusive_transaction

from events.delivery import deliveries_run
from events.tasks import tasks_reclaim

logger = logging.getLogger("events.worker")

SUMMARY_EVERY_SECONDS = 60.0
BACKOFF_FIRST_SECONDS = 0.5
TASKS_PER_PASS = 100


def connections_drop() -> None:
    """Forget every connection (a broken one cannot even roll back): the next query opens a fresh one."""
    for connection in connections.all(initialized_only=True):
        try:
            connection.close()
        except DatabaseError:
            connection.connection = None


@dataclass
class Backoff:
    """Seconds to wait after each consecutive failure: doubling from BACKOFF_FIRST_SECONDS up to `ceiling`,
    each with up to 25% jitter so many workers do not return in lockstep."""

    ceiling: float
    failures: int = 0

    def next_delay(self) -> float:
        self.failures += 1
        base = min(BACKOFF_FIRST_SECONDS * 2 ** (self.failures - 1), self.ceiling)
        return base + base * random.uniform(0, 0.25)  # noqa: S311 - jitter, not a secret

    def reset(self) -> None:
        self.failures = 0


@dataclass
class Outage:
    """Logs a database outage once when it starts, at most once a minute while it lasts, once when it ends."""

    started: float | None = None
    last_logged: float = 0.0

    def failed(self, exc: BaseException, delay: float) -> None:
        now = time.monotonic()
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if self.started is None:
            self.started, self.last_logged = now, now
            logger.warning("database unavailable (%s): %s; retrying in %.1f s", type(exc).__name__, first_line, delay)
        elif now - self.last_logged >= SUMMARY_EVERY_SECONDS:
            self.last_logged = now
            logger.warning("database still unavailable after %.0f s: %s", now - self.started, first_line)

    def recovered(self) -> None:
        if self.started is not None:
            logger.warning("database back after %.1f s", time.monotonic() - self.started)
            self.started = None


@dataclass
class WorkerLoop:
    """One worker process: `run()` until `stop()` (a signal)."""

    interval: float
    sweep_interval: float
    queue_names: list[str]
    worker_id: str
    running: bool = True
    backoff: Backoff = field(default_factory=lambda: Backoff(settings.WORKER_BACKOFF_MAX_SECONDS))
    outage: Outage = field(default_factory=Outage)
    done: dict[str, int] = field(default_factory=lambda: {"tasks": 0, "webhookAttempts": 0, "tasksReclaimed": 0})
    next_sweep: float = 0.0
    next_summary: float = field(default_factory=lambda: time.monotonic() + SUMMARY_EVERY_SECONDS)

    def __post_init__(self) -> None:
        self.tasks = Worker(
            queue_names=self.queue_names,
            interval=0,
            batch=True,
            backend_name=DEFAULT_TASK_BACKEND_ALIAS,
            startup_delay=False,
            max_tasks=None,
            worker_id=self.worker_id,
            excluded_queue_names=[],
        )
        self.uses_database_queue = isinstance(task_backends[DEFAULT_TASK_BACKEND_ALIAS], DatabaseBackend)

    def stop(self, signum: int, _frame) -> None:
        if not self.running:
            logger.warning("%s again: stopping now", signal.strsignal(signum))
            sys.exit(1)
        logger.warning("%s: stopping after this pass", signal.strsignal(signum))
        self.running = False

    def run(self) -> None:
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
            signal.signal(signum, self.stop)
        logger.info("worker %s started (queues %s)", self.worker_id, ",".join(self.queue_names))
        while self.running:
            self.guarded(self.one_pass)
        self.log_summary(force=True)
        logger.info("worker %s stopped", self.worker_id)

    def guarded(self, work: Callable[[], object]) -> None:
        """`work()`, then the idle sleep; after a failure, a fresh connection and the backoff instead. Nothing
        but a signal ends the loop: a database error is an outage to wait out, anything else is logged."""
        try:
            work()
        except DatabaseError as exc:
            connections_drop()
            delay = self.backoff.next_delay()
            self.outage.failed(exc, delay)
            self.sleep(delay)
            return
        except Exception:
            connections_drop()
            delay = self.backoff.next_delay()
            logger.exception("worker pass failed; next pass in %.1f s", delay)
            self.sleep(delay)
            return
        self.log_summary()
        self.sleep(self.interval)

    def one_pass(self) -> bool:
        """Reclaim, up to TASKS_PER_PASS tasks, the sweep when due; True when more tasks may be ready."""
        close_old_connections()
        more = False
        if self.uses_database_queue:
            self.done["tasksReclaimed"] += tasks_reclaim(now=timezone.now())
            self.database_answered()  # said at once, not after a long pass
            # A bounded number per pass: wake-ups keep arriving under load, and the sweep and the summary must
            # still come round.
            for _ in range(TASKS_PER_PASS):
                if not (self.running and self.run_one_task()):
                    break
                self.done["tasks"] += 1
            else:
                more = True
        if time.monotonic() >= self.next_sweep:
            self.done["webhookAttempts"] += deliveries_run()
            self.next_sweep = time.monotonic() + self.sweep_interval
        self.database_answered()
        return more

    def database_answered(self) -> None:
        self.outage.recovered()
        self.backoff.reset()

    def run_one_task(self) -> bool:
        """Claim the next ready task (skipping rows another worker holds) and run it; False when none is ready.
        A worker that dies while running one leaves it RUNNING; `tasks_reclaim` makes it ready again after
        TASK_LEASE_SECONDS."""
        ready = DBTaskResult.objects.ready().filter(backend_name=DEFAULT_TASK_BACKEND_ALIAS)
        if "*" not in self.queue_names:
            ready = ready.filter(queue_name__in=self.queue_names)
        with exclusive_transaction(ready.db):
            task_result = ready.get_locked()
            if task_result is None:
                return False
            task_result.claim(self.worker_id)
        self.tasks.run_task(task_result)
        return True

    def sleep(self, seconds: float) -> None:
        """In short steps, so a signal ends the wait at once."""
        until = time.monotonic() + seconds
        while self.running and (left := until - time.monotonic()) > 0:
            time.sleep(min(left, 0.2))

    def log_summary(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now < self.next_summary:
            return
        self.next_summary = now + SUMMARY_EVERY_SECONDS
        if any(self.done.values()):
            logger.info("worker %s: %s", self.worker_id, ", ".join(f"{k} {v}" for k, v in self.done.items()))
            self.done = dict.fromkeys(self.done, 0)
