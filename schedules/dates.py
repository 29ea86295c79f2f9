"""A schedule's dates: the n-th one (0 first) from its start, interval and day of month, rolled forward to a
Federal Reserve banking day; None past its end date or count."""

from __future__ import annotations

import calendar as month_calendar
from collections.abc import Iterator
from datetime import date, timedelta

from schedules.models import Schedule
from transactions.calendar import next_business_day

INTERVAL_DAYS = {Schedule.Interval.WEEKLY: 7, Schedule.Interval.BIWEEKLY: 14}


def _monthly(start: date, day_of_month: int, index: int) -> date:
    """The day_of_month of the index-th month from the first month holding such a day on or after `start`
    (the last day of a shorter month)."""
    months = start.year * 12 + start.month - 1
    first = date(start.year, start.month, min(day_of_month, month_calendar.monthrange(start.year, start.month)[1]))
    if first < start:
        months += 1
    months += index
    year, month = divmod(months, 12)
    return date(year, month + 1, min(day_of_month, month_calendar.monthrange(year, month + 1)[1]))


def raw_date(schedule: Schedule, index: int) -> date:
    if schedule.interval == Schedule.Interval.MONTHLY:
        return _monthly(schedule.start_date, schedule.day_of_month or schedule.start_date.day, index)
    return schedule.start_date + timedelta(days=INTERVAL_DAYS[schedule.interval] * index)


def schedule_date(schedule: Schedule, index: int) -> date | None:
    """The index-th debit date, rolled to a banking day; None when the schedule ends before it."""
    if schedule.count is not None and index >= schedule.count:
        return None
    raw = raw_date(schedule, index)
    if schedule.end_date is not None and raw > schedule.end_date:
        return None
    return next_business_day(raw)


def dates_from(schedule: Schedule, index: int, limit: int) -> Iterator[tuple[int, date]]:
    for number in range(index, index + limit):
        day = schedule_date(schedule, number)
        if day is None:
            return
        yield number, day
