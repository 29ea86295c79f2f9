"""Reads of reconciliation: Finance's queue in figures, for /health and /metrics."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Min

from reconciliation.models import ItemState, ReconciliationException, StatementLine

OPEN_STATES = (ReconciliationException.State.OPEN, ReconciliationException.State.WRITE_OFF_ASKED)


def exceptions_open() -> Any:
    return ReconciliationException.objects.filter(state__in=OPEN_STATES)


def reconciliation_figures(*, now: datetime) -> dict[str, Any]:
    """The open exceptions by kind, the age of the oldest in days, the write-offs waiting for a second person, and
    the statement lines not matched yet (exceptions or not)."""
    by_kind = dict(exceptions_open().order_by().values_list("kind").annotate(count=Count("pk")))
    oldest = exceptions_open().aggregate(at=Min("opened_at"))["at"]
    return {
        "openExceptions": sum(by_kind.values()),
        "unmatchedLineExceptions": by_kind.get(ReconciliationException.Kind.UNMATCHED_LINE, 0),
        "unseenExpectedExceptions": by_kind.get(ReconciliationException.Kind.UNSEEN_EXPECTED, 0),
        "writeOffsAwaitingApproval": exceptions_open()
        .filter(state=ReconciliationException.State.WRITE_OFF_ASKED)
        .count(),
        "oldestExceptionAgeSeconds": 0.0 if oldest is None else round((now - oldest).total_seconds(), 1),
        "unmatchedLines": StatementLine.objects.filter(state=ItemState.OPEN).count(),
    }
