"""A schedule's own status (active, paused, cancelled, stopped, completed), written here alone: this module reaches no
transaction, so the scan that keeps a transaction's status in transactions/state.py (tests/transactions/test_state.py)
does not mistake a schedule's move for one."""

from __future__ import annotations

from datetime import datetime

from schedules.models import Schedule


def schedule_status_write(
    schedule: Schedule, *, status: str, at: datetime, reason: str | None = None, also: tuple[str, ...] = ()
) -> None:
    """Saves the schedule's new status (with its reason, when given) and the other fields named in `also`."""
    schedule.status, schedule.updated_at = status, at
    fields = ["status", "updated_at", *also]
    if reason is not None:
        schedule.status_reason = reason[:255]
        fields.append("status_reason")
    schedule.save(update_fields=fields)
