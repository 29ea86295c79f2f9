"""/metrics: request latencies (django-prometheus middleware) and figures read from the database at scrape time.
Adding a figure is one DatabaseMetric in DATABASE_METRICS: a name, its help, its labels and a function that
returns (label values, value) pairs."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import prometheus_client
from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count
from django.utils import timezone
from prometheus_client import multiprocess
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from events.models import Delivery
from events.tasks import tasks_stuck_count
from monitoring.health import oldest_due_delivery
from transactions.models import Transaction

Samples = Iterable[tuple[tuple[str, ...], float]]
logger = logging.getLogger(__name__)
DATABASE_UP = "vault_metrics_database_up"
DATABASE_UP_HELP = "1 when the database figures below were read, 0 when the database did not answer."


@dataclass(frozen=True)
class DatabaseMetric:
    name: str
    help: str
    labels: tuple[str, ...]
    read: Callable[[], Samples]


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
    def _read(metric: DatabaseMetric) -> GaugeMetricFamily:
        family = GaugeMetricFamily(metric.name, metric.help, labels=list(metric.labels))
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
