"""A schedule as its GET route and its events show it."""

from __future__ import annotations

from typing import Any

from schedules.dates import dates_from
from schedules.models import Schedule
from vault.records import iso_utc, text_or_none

UPCOMING = 12


def schedule_record(schedule: Schedule, *, upcoming: bool = True) -> dict[str, Any]:
    record: dict[str, Any] = {
        "uuid": str(schedule.uuid),
        "customerUuid": str(schedule.customer.uuid),
        "paymentMethodUuid": str(schedule.payment_method.uuid),
        "mandateUuid": str(schedule.mandate.uuid),
        "amount": schedule.amount,
        "interval": schedule.interval,
        "dayOfMonth": schedule.day_of_month,
        "startDate": schedule.start_date.isoformat(),
        "endDate": schedule.end_date.isoformat() if schedule.end_date else None,
        "count": schedule.count,
        "retryPolicy": schedule.retry_policy,
        "purpose": schedule.purpose,
        "status": schedule.status,
        "statusReason": text_or_none(schedule.status_reason),
        "debitsMade": schedule.next_index,
        "createdAt": iso_utc(schedule.created_at),
    }
    if upcoming:
        live = schedule.status in (Schedule.Status.ACTIVE, Schedule.Status.PAUSED)
        dates = dates_from(schedule, schedule.next_index, UPCOMING) if live else ()
        record["upcoming"] = [day.isoformat() for _index, day in dates]
    return record
