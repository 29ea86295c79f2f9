"""The checks of GET /health: one function per check, registered in CHECKS. A check returns its figures and
raises CheckFailed (or anything else) when the service cannot do its work."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from bank.selectors import bank_files_needing_attention
from events.models import Delivery, Event
from reconciliation.selectors import reconciliation_figures


class CheckFailed(Exception):
    pass


def check_database() -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return {}


def oldest_due_delivery(now: datetime) -> datetime | None:
    """Since when the oldest webhook work has waited for a worker (None: nothing waits): a delivery that is due and
    not being sent, or an event whose deliveries the worker has still to make (fan-out is the worker's first step,
    so with no worker an event waits there and no delivery is ever due)."""
    due = Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
    oldest_delivery = due.order_by("next_attempt_at").values_list("next_attempt_at", flat=True).first()
    # The partial index on id (event_fanout_pending) finds the oldest unfanned event without a scan.
    oldest_fanout = (
        Event.objects.filter(fanout_pending=True).order_by("id").values_list("created_at", flat=True).first()
    )
    return min((at for at in (oldest_delivery, oldest_fanout) if at is not None), default=None)


def check_worker_queue() -> dict[str, Any]:
    """A running worker sends what is due within seconds: a delivery due for longer than
    HEALTH_QUEUE_MAX_AGE_SECONDS means no worker is draining the queue."""
    now = timezone.now()
    oldest = oldest_due_delivery(now)
    age = 0.0 if oldest is None else (now - oldest).total_seconds()
    figures = {"oldestDueDeliverySeconds": round(age, 1), "maxAgeSeconds": settings.HEALTH_QUEUE_MAX_AGE_SECONDS}
    if age > settings.HEALTH_QUEUE_MAX_AGE_SECONDS:
        raise CheckFailed(f"webhook work has waited {age:.0f} s for a worker: is run_worker running?")
    return figures


def check_bank_files() -> dict[str, Any]:
    """The files the bank has not acknowledged in time, or rejected, and not yet sent again: shown, never a 503
    (a load balancer must not take the service out for the bank's silence); `fetch_bank_files` exits 1 and the
    admin lists them (docs/operations.md, "The bank connection")."""
    return bank_files_needing_attention()


def check_reconciliation() -> dict[str, Any]:
    """The bank statement's exceptions Finance has not worked (lines nobody expected, expected payments the bank
    has not shown), with the oldest one's age: shown, never a 503, as the bank files (docs/operations.md, "The
    daily reconciliation")."""
    return reconciliation_figures(now=timezone.now())


CHECKS: dict[str, Callable[[], dict[str, Any]]] = {
    "database": check_database,
    "workerQueue": check_worker_queue,
    "bankFiles": check_bank_files,
    "reconciliation": check_reconciliation,
}


def health_report() -> tuple[bool, dict[str, Any]]:
    """(healthy, body): every check's outcome, its figures and its time; a failed check names its error."""
    results: dict[str, Any] = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            result = {"ok": True, **check()}
        except Exception as exc:
            result = {
                "ok": False,
                "error": str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__,
            }
        result["ms"] = round((time.perf_counter() - started) * 1000, 1)
        results[name] = result
    healthy = all(result["ok"] for result in results.values())
    return healthy, {"status": "ok" if healthy else "unavailable", "checks": results}
