"""Federal Reserve business days (the ACH calendar) and processing windows.

The `holidays` package ships no XFED market, so the Fed calendar is built from its US federal holidays
with the Fed's own rule applied: a holiday on Saturday is not moved to Friday (the Fed is open that
Friday); a holiday on Sunday closes the Monday after."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import holidays

if TYPE_CHECKING:
    from accounts.models import Company

EASTERN = ZoneInfo("America/New_York")


@lru_cache(maxsize=64)
def _fed_holidays(year: int) -> frozenset[date]:
    calendar = holidays.US(years=year, observed=True)
    return frozenset(day for day, name in calendar.items() if not (day.weekday() == 4 and "(observed)" in name))


def is_business_day(day: date) -> bool:
    return day.weekday() < 5 and day not in _fed_holidays(day.year)


def next_business_day(day: date, *, include_today: bool = True) -> date:
    """`day` itself when it is a business day and include_today, else the next one after it."""
    candidate = day if include_today else day + timedelta(days=1)
    while not is_business_day(candidate):
        candidate += timedelta(days=1)
    return candidate


def add_business_days(day: date, count: int) -> date:
    """`count` Fed business days after `day` (the prenote wait of account validation counts them)."""
    result = day
    for _ in range(count):
        result = next_business_day(result, include_today=False)
    return result


def business_days_before(day: date, count: int) -> date:
    """The Fed business day `count` business days before `day` (credit monitoring's "within N banking days")."""
    result = day
    for _ in range(count):
        result -= timedelta(days=1)
        while not is_business_day(result):
            result -= timedelta(days=1)
    return result


def eastern_now(now: datetime) -> datetime:
    return now.astimezone(EASTERN)


def next_processing_day(now: datetime, cutoff: time) -> date:
    """The ACH processing day for a charge made at `now`: today if it is a business day before the
    company's cut-off (Eastern), otherwise the next business day."""
    local = eastern_now(now)
    today = local.date()
    if is_business_day(today) and local.time() < cutoff:
        return today
    return next_business_day(today, include_today=False)


def settlement_time(day: date) -> datetime:
    """When funds for `day` settle: 17:00 Eastern (after the Fed's last settlement window)."""
    return datetime.combine(day, time(17, 0), tzinfo=EASTERN)


def company_cutoff(company: Company) -> time:
    # Settings built in memory (not read back) still hold the field default as text.
    cutoff = company.merchant_settings.cutoff_time
    return cutoff if isinstance(cutoff, time) else time.fromisoformat(cutoff)


def administrative_return_deadline(settled_on: date) -> date:
    """The last day a return of most codes is timely (CONTRACT 12): the second banking day after settlement. A
    return received by the end of that banking day is timely."""
    return add_business_days(settled_on, 2)


def unauthorized_return_deadline(settled_on: date) -> date:
    """The last day an unauthorized return (R05, R07, R10, R11, R37, R51, R53) is timely (CONTRACT 12): the first
    banking day after the 60th calendar day after settlement."""
    return next_business_day(settled_on + timedelta(days=60), include_today=False)
