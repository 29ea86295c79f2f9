"""/metrics: request latencies (django-prometheus middleware) and figures read from the database at scrape time.
Adding a figure is one DatabaseMetric in DATABASE_METRICS: a name, its help, its labels and a function that
returns (label values, value) pairs."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, timedelta

import prometheus_client
from django.conf import settings
from django.db import DatabaseError
from django.db.migrations.recorder import MigrationRecorder
from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client import multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from bank.models import BankFile, BankFileStatus, InboundFile
from bank.selectors import bank_files_needing_attention
from events.models import Delivery
from events.tasks import tasks_stuck_count
from monitoring.health import oldest_due_delivery
from reconciliation.selectors import reconciliation_figures
from transactions.calendar import eastern_now, is_business_day
from transactions.models import ParkedReturnItem, Transaction
from vault.models import CommandRun

Samples = Iterable[tuple[tuple[str, ...], float]]
MAX_DAYS_MISSED = 366  # counted no further: an alert fires at 1
logger = logging.getLogger(__name__)
DATABASE_UP = "vault_metrics_database_up"
DATABASE_UP_HELP = "1 when the database figures below were read, 0 when the database did not answer."


@dataclass(frozen=True)
class DatabaseMetric:
    name: str
    help: str
    labels: tuple[str, ...]
    read: Callable[[], Samples]
    counter: bool = False  # a count that only grows (exposed as NAME_total)


def _charges_by_status() -> Samples:
    # The (status, method, effective_date) index answers this without reading the table.
    rows = Transaction.objects.order_by().values_list("status").annotate(count=Count("id"))
    return [((status,), count) for status, count in rows]


def _delivery_backlog() -> Samples:
    pending = Delivery.objects.filter(status=Delivery.Status.PENDING)
    now = timezone.now()
    return [
        (("due",), pending.filter(next_attempt_at__lte=now).count()),
        (("scheduled",), pending.filter(next_attempt_at__gt=now).count()),
    ]


def _oldest_due_delivery_age() -> Samples:
    now = timezone.now()
    oldest = oldest_due_delivery(now)
    return [((), 0.0 if oldest is None else (now - oldest).total_seconds())]


def _tasks_stuck() -> Samples:
    return [((), tasks_stuck_count(now=timezone.now()))]


def _reconciliation_exceptions() -> Samples:
    figures = reconciliation_figures(now=timezone.now())
    return [
        (("unmatched_line",), figures["unmatchedLineExceptions"]),
        (("unseen_expected",), figures["unseenExpectedExceptions"]),
    ]


def _reconciliation_oldest_exception_age() -> Samples:
    return [((), reconciliation_figures(now=timezone.now())["oldestExceptionAgeSeconds"])]


def _every_day(day: date) -> bool:
    return True


# What each of deploy/systemd's timers runs (a vault.commands.ScheduledCommand, or the import unit's script, which
# records itself as import_returns through `record_run`), and the days a run is due: Monday to Friday, where a
# Federal Reserve holiday's run (empty) is not missed, or every day. tests/monitoring/ holds it to the timers.
SCHEDULED_COMMANDS: dict[str, Callable[[date], bool]] = {
    "originate": is_business_day,
    "transmit_files": is_business_day,
    "fetch_bank_files": is_business_day,
    "reconcile": is_business_day,
    "settle": is_business_day,
    "run_retries": is_business_day,
    "mark_final": _every_day,
    "run_schedules": _every_day,
    "purge_outbound": _every_day,
    "purge_events": _every_day,
    "purge_expired": _every_day,
    "purge_exports": _every_day,
    "purge_sessions": _every_day,
    "purge_refresh_tokens": _every_day,
    "import_returns": is_business_day,
}


def _command_last_success() -> Samples:
    runs = CommandRun.objects.filter(command__in=SCHEDULED_COMMANDS).values_list("command", "succeeded_at")
    return [((command,), at.timestamp()) for command, at in runs]


def _days_missed(last: date, today: date, due: Callable[[date], bool]) -> int:
    day, missed = last + timedelta(days=1), 0
    while day < today and missed < MAX_DAYS_MISSED:
        missed, day = missed + due(day), day + timedelta(days=1)
    return missed


def _installed_on() -> date:
    """The day the database was made (its first migration): a command that never ran has missed every day it was
    due since then."""
    first = MigrationRecorder.Migration.objects.aggregate(first=Min("applied"))["first"]
    return eastern_now(first or timezone.now()).date()


def _command_days_missed() -> Samples:
    """Every scheduled command, one that never ran included (counted from the install day)."""
    today = eastern_now(timezone.now()).date()
    last_success = dict(
        CommandRun.objects.filter(command__in=SCHEDULED_COMMANDS).values_list("command", "succeeded_at")
    )
    installed = None
    samples = []
    for command, due in SCHEDULED_COMMANDS.items():
        if command in last_success:
            since = eastern_now(last_success[command]).date()
        else:
            installed = installed or _installed_on()
            since = installed - timedelta(days=1)  # the install day itself was due
        samples.append(((command,), _days_missed(since, today, due)))
    return samples


def _bank_files_by_status() -> Samples:
    counts = dict(BankFile.objects.order_by().values_list("status").annotate(count=Count("id")))
    return [((status,), counts.get(status, 0)) for status in BankFileStatus.values]


def _bank_files_needing_attention() -> Samples:
    figures = bank_files_needing_attention()  # {"rejected": n, "rejectedFiles": [names], ...}
    return [((reason,), count) for reason, count in figures.items() if not reason.endswith("Files")]


def _bank_file_exceptions() -> Samples:
    """What came back from the bank and was not applied: a file refused whole, a file applied with an error (an
    acknowledgement of a file we never sent, or whose figures contradict ours), an item of a return file parked."""
    inbound = InboundFile.objects.order_by()
    return [
        (("refused_file",), inbound.filter(state=InboundFile.State.REFUSED).count()),
        (("file_not_applied",), inbound.filter(state=InboundFile.State.APPLIED).exclude(error="").count()),
        (("parked_return_item",), ParkedReturnItem.objects.count()),
    ]


DATABASE_METRICS: list[DatabaseMetric] = [
    DatabaseMetric("vault_charges", "Transactions by status (every company).", ("status",), _charges_by_status),
    DatabaseMetric(
        "vault_webhook_deliveries_pending",
        "Webhook deliveries not yet delivered: due now, or scheduled for a later retry.",
        ("state",),
        _delivery_backlog,
    ),
    DatabaseMetric(
        "vault_webhook_oldest_due_delivery_age_seconds",
        "How long the oldest due webhook delivery has waited (0 when none waits).",
        (),
        _oldest_due_delivery_age,
    ),
    DatabaseMetric(
        "vault_tasks_running_past_lease",
        "Task rows RUNNING past TASK_LEASE_SECONDS (their worker died); 0 once a worker has reclaimed them.",
        (),
        _tasks_stuck,
    ),
    DatabaseMetric(
        "vault_reconciliation_exceptions",
        "Open reconciliation exceptions (write-offs awaiting approval included): statement lines nobody expected, "
        "expected payments the bank has not shown.",
        ("kind",),
        _reconciliation_exceptions,
    ),
    DatabaseMetric(
        "vault_reconciliation_oldest_exception_age_seconds",
        "How long the oldest open reconciliation exception has been open (0 when none is).",
        (),
        _reconciliation_oldest_exception_age,
    ),
    DatabaseMetric(
        "vault_command_last_success_timestamp_seconds",
        "When each scheduled command last ended without an error (Unix time); none until it has once.",
        ("command",),
        _command_last_success,
    ),
    DatabaseMetric(
        "vault_command_days_missed",
        "Days before today (Eastern) since a scheduled command's last success on which it was due and no run of "
        "it ended well: banking days for the Monday-to-Friday commands, every day for the others (mark_final, "
        "run_schedules, the purges)."
        " 0 while it ran today or on its last due day.",
        ("command",),
        _command_days_missed,
    ),
    DatabaseMetric(
        "vault_bank_files",
        "Live NACHA files by their status at the bank (bank/state.py): pending, transmitted, acknowledged, rejected, "
        "unacknowledged, outside, exception.",
        ("status",),
        _bank_files_by_status,
    ),
    DatabaseMetric(
        "vault_bank_files_needing_attention",
        "Files an operator must act on (/health's bankFiles): rejected and not yet sent again, unacknowledged, or "
        "whose answers from the bank contradict each other (exception).",
        ("reason",),
        _bank_files_needing_attention,
    ),
    DatabaseMetric(
        "vault_bank_file_exceptions",
        "What came back from the bank and was not applied, counted since the install (alert on an increase): "
        "files refused whole, files applied with an error, return and NOC items parked.",
        ("kind",),
        _bank_file_exceptions,
        counter=True,
    ),
]


class DatabaseCollector(Collector):
    """Reads DATABASE_METRICS at most once per METRICS_CACHE_SECONDS per process, so frequent scrapes cost the
    database one round of small index reads."""

    def __init__(self) -> None:
        self._cached: list[GaugeMetricFamily] = []
        self._read_at = float("-inf")

    def collect(self):
        if time.monotonic() - self._read_at >= settings.METRICS_CACHE_SECONDS:
            try:
                families = [self._read(metric) for metric in DATABASE_METRICS]
            except DatabaseError:
                logger.warning("metrics: the database did not answer", exc_info=True)
                yield GaugeMetricFamily(DATABASE_UP, DATABASE_UP_HELP, value=0)
                return
            self._cached, self._read_at = families, time.monotonic()
        yield GaugeMetricFamily(DATABASE_UP, DATABASE_UP_HELP, value=1)
        yield from self._cached

    @staticmethod
    def _read(metric: DatabaseMetric) -> GaugeMetricFamily | CounterMetricFamily:
        kind = CounterMetricFamily if metric.counter else GaugeMetricFamily
        family = kind(metric.name, metric.help, labels=list(metric.labels))
        for label_values, value in metric.read():
            family.add_metric(list(label_values), value)
        return family


DATABASE_REGISTRY = prometheus_client.CollectorRegistry()
DATABASE_REGISTRY.register(DatabaseCollector())


def metrics_page() -> tuple[bytes, str]:
    """The exposition text: this process's request metrics, or every gunicorn worker's when
    PROMETHEUS_MULTIPROC_DIR is set (prometheus_client's multiprocess mode), then the database figures."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = prometheus_client.CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)
    else:
        processes = prometheus_client.REGISTRY
    body = prometheus_client.generate_latest(processes) + prometheus_client.generate_latest(DATABASE_REGISTRY)
    return body, prometheus_client.CONTENT_TYPE_LATEST
