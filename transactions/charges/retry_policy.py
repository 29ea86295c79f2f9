"""A company's retry policy (CONTRACT 15): how it is read and written, and the day its schedule gives the next
presentment of a debit returned on a given day. Off by default (no row)."""

from __future__ import annotations

import calendar as months
from datetime import date, datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import Company
from transactions import calendar
from transactions.models import RetryPolicy, RetrySchedule
from transactions.models.retries import WEEKDAYS

OFF: dict[str, Any] = {"enabled": False, "attempts": 2, "schedule": None}


def retry_policy_record(policy: RetryPolicy | None) -> dict[str, Any]:
    if policy is None:
        return dict(OFF)
    schedule: dict[str, Any] = {"type": policy.schedule_type}
    if policy.schedule_type == RetrySchedule.AFTER_BANKING_DAYS:
        schedule["days"] = policy.banking_days
    elif policy.schedule_type == RetrySchedule.WEEKDAY:
        schedule["weekday"] = WEEKDAYS[policy.weekday]
    elif policy.schedule_type == RetrySchedule.DAYS_OF_MONTH:
        schedule["days"] = list(policy.days_of_month)
    return {"enabled": policy.enabled, "attempts": policy.attempts, "schedule": schedule}


def retry_policy_get(*, company: Company) -> dict[str, Any]:
    return retry_policy_record(RetryPolicy.objects.filter(company=company).first())


def retry_policy_put(*, company: Company, enabled: bool, attempts: int, schedule: dict[str, Any], at: datetime) -> dict:
    """The whole policy replaced (PUT): `schedule` as the input serializer validated it."""
    kind = schedule["type"]
    fields = {
        "enabled": enabled,
        "attempts": attempts,
        "schedule_type": kind,
        "banking_days": schedule["days"] if kind == RetrySchedule.AFTER_BANKING_DAYS else None,
        "weekday": WEEKDAYS.index(schedule["weekday"]) if kind == RetrySchedule.WEEKDAY else None,
        "days_of_month": sorted(set(schedule["days"])) if kind == RetrySchedule.DAYS_OF_MONTH else None,
        "updated_at": at,
    }
    with transaction.atomic():
        policy, _created = RetryPolicy.objects.update_or_create(company=company, defaults=fields)
    return retry_policy_record(policy)


def _last_banking_day(year: int, month: int) -> date:
    day = date(year, month, months.monthrange(year, month)[1])
    while not calendar.is_business_day(day):
        day -= timedelta(days=1)
    return day


def _months_from(day: date, count: int) -> list[tuple[int, int]]:
    return [((day.month - 1 + step) // 12 + day.year, (day.month - 1 + step) % 12 + 1) for step in range(count)]


def next_attempt_date(policy: RetryPolicy, returned_on: date) -> date:
    """The first day after `returned_on` the schedule names, rolled forward to a banking day: N banking days later, the
    next such weekday, the next of the days of the month (a day past the month's end is its last day), or the month's
    last banking day."""
    kind = policy.schedule_type
    if kind == RetrySchedule.AFTER_BANKING_DAYS:
        return calendar.add_business_days(returned_on, policy.banking_days)
    if kind == RetrySchedule.WEEKDAY:
        ahead = (policy.weekday - returned_on.weekday() - 1) % 7 + 1
        return calendar.next_business_day(returned_on + timedelta(days=ahead))
    if kind == RetrySchedule.DAYS_OF_MONTH:
        candidates = (
            calendar.next_business_day(date(year, month, min(day, months.monthrange(year, month)[1])))
            for year, month in _months_from(returned_on, 3)
            for day in policy.days_of_month
        )
        return min(day for day in candidates if day > returned_on)
    return min(
        day
        for day in (_last_banking_day(year, month) for year, month in _months_from(returned_on, 2))
        if day > returned_on
    )
