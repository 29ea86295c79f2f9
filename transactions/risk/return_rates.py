"""Return rates (Nacha Article Two 2.17.2): per company, overall and per SEC code, unauthorized, administrative
and overall, over a rolling 60 days or a calendar month, by both of Nacha's methods.

Days are the ACH calendar's (US Eastern). A debit counts on the day its batch was originated; a return on the
day it was received. Method 1 (`period`, CONTRACT 10): returns received in the period over the debits
originated in the period. Method 2 (`files`): the same returns over the debits that went out in the NACHA
files of the returned entries, scope by scope (the company, or the company's entries of one SEC code)."""

from __future__ import annotations

import calendar as month_calendar
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from enum import Enum

from django.db.models import Count, Expression, F, FloatField, OuterRef, QuerySet, Subquery, Sum
from django.db.models.functions import Cast, Coalesce, NullIf, TruncDate

from accounts.models import Company
from transactions.calendar import EASTERN
from transactions.methods import RETURNABLE_METHODS, method_kind
from transactions.models import Batch, TransactionReturn, TransactionType
from transactions.return_codes import NOT_RETURNS, RETURN_CODES, RateCategory

WINDOW_DAYS = 60
# Nacha's levels; a rate is compared as returns / debits, unrounded.
THRESHOLDS: dict[RateCategory, float] = {
    RateCategory.UNAUTHORIZED: 0.005,
    RateCategory.ADMINISTRATIVE: 0.03,
    RateCategory.OVERALL: 0.15,
}
CATEGORIES = tuple(THRESHOLDS)


class RateMethod(str, Enum):
    PERIOD = "period"  # Nacha method 1
    FILES = "files"  # Nacha method 2


@dataclass(frozen=True)
class Period:
    first_day: date
    last_day: date  # inclusive

    @property
    def days(self) -> int:
        return (self.last_day - self.first_day).days + 1

    def bounds(self) -> tuple[datetime, datetime]:
        """[start, end) as instants: midnight Eastern of the first day and of the day after the last."""
        start = datetime.combine(self.first_day, time.min, tzinfo=EASTERN)
        end = datetime.combine(self.last_day + timedelta(days=1), time.min, tzinfo=EASTERN)
        return start, end


def rolling_period(as_of: date, days: int = WINDOW_DAYS) -> Period:
    return Period(as_of - timedelta(days=days - 1), as_of)


def month_period(year: int, month: int) -> Period:
    return Period(date(year, month, 1), date(year, month, month_calendar.monthrange(year, month)[1]))


def today_eastern(now: datetime) -> date:
    return now.astimezone(EASTERN).date()


@dataclass
class Counts:
    """Debits and returns by category of one scope."""

    debits: int = 0
    returns: dict[RateCategory, int] = field(default_factory=lambda: dict.fromkeys(CATEGORIES, 0))

    def add_return(self, code: str, count: int = 1) -> None:
        if code in NOT_RETURNS:
            return
        self.returns[RateCategory.OVERALL] += count
        category = RETURN_CODES[code].category if code in RETURN_CODES else None
        if category is not None:
            self.returns[category] += count

    def rate(self, category: RateCategory) -> float:
        """What the API answers (CONTRACT 10): 0 when there are no debits."""
        return self.returns[category] / self.debits if self.debits else 0

    def defined_rate(self, category: RateCategory) -> float | None:
        """For people: None (shown "n/a") when there are no debits, where 0.00% would read as a good figure."""
        return self.returns[category] / self.debits if self.debits else None

    def categories_json(self) -> dict:
        return {
            category.value: {
                "returns": self.returns[category],
                "rate": self.rate(category),
                "threshold": THRESHOLDS[category],
            }
            for category in CATEGORIES
        }


@dataclass
class RateSheet:
    period: Period
    method: RateMethod
    total: Counts
    by_sec_code: dict[str, Counts]

    def as_json(self) -> dict:
        """CONTRACT 10. Each SEC code also carries its own `debits`, without which its rates cannot be read."""
        return {
            "windowDays": self.period.days,
            "asOf": self.period.last_day.isoformat(),
            "debits": self.total.debits,
            **self.total.categories_json(),
            "bySecCode": {
                sec: {"debits": counts.debits, **counts.categories_json()}
                for sec, counts in sorted(self.by_sec_code.items())
            },
        }

    def csv_rows(self) -> Iterable[list]:
        scopes = [("all", self.total), *sorted(self.by_sec_code.items())]
        for scope, counts in scopes:
            for category in CATEGORIES:
                yield [
                    self.method.value,
                    self.period.first_day.isoformat(),
                    self.period.last_day.isoformat(),
                    scope,
                    category.value,
                    counts.returns[category],
                    counts.debits,
                    counts.rate(category),
                    THRESHOLDS[category],
                ]


CSV_HEADER = ("method", "firstDay", "lastDay", "secCode", "category", "returns", "debits", "rate", "threshold")


def _sec_code(method: str, code: str) -> str:
    return code or method_kind(method).file_sec_code


def originated_batches(*, company_id: int) -> QuerySet[Batch]:
    """The company's batches that carry debits of the rates. A batch keeps the count of its debit entries that move
    money (`Batch.debit_count`, written by `originate`): the returnable methods' debits, prenotes (the only
    zero-amount entries) left out, micro-entry debits counted; the sample data's batches of seeded rows count none.
    So a company's debits over 60 days are a sum over its batches, not a count of its entries."""
    return Batch.objects.filter(company_id=company_id, debit_count__gt=0).exclude(
        batched_at__lte=F("company__merchant_settings__return_rates_since")
    )


def _debit_returns() -> QuerySet[TransactionReturn]:
    """Returns of the debits `originated_batches` counts: debit entries that went out in a file, prenotes left out;
    never an R61-R77 (older rows may hold one booked as a return before dishonored returns had their own records).
    Seeded sample rows count on neither side."""
    return (
        TransactionReturn.objects.filter(
            transaction__seeded__isnull=True,
            transaction__type=TransactionType.DEBIT,
            transaction__method__in=RETURNABLE_METHODS,
            transaction__batch__isnull=False,
            transaction__amount__gt=0,
        )
        .exclude(return_code__in=NOT_RETURNS)
        .exclude(returned_at__lte=F("company__merchant_settings__return_rates_since"))
    )


def returns_of_debits(*, company_id: int) -> QuerySet[TransactionReturn]:
    return _debit_returns().filter(company_id=company_id)


@dataclass
class DailyCounts:
    """Per Eastern day: debits originated and returns received, by SEC code (returns also by code)."""

    debits: dict[date, dict[str, int]]
    returns: dict[date, dict[tuple[str, str], int]]

    def counts(self, period: Period) -> tuple[Counts, dict[str, Counts]]:
        total, by_sec = Counts(), defaultdict(Counts)
        for day, by_code in self.debits.items():
            if period.first_day <= day <= period.last_day:
                for sec, count in by_code.items():
                    total.debits += count
                    by_sec[sec].debits += count
        for day, by_code in self.returns.items():
            if period.first_day <= day <= period.last_day:
                for (sec, code), count in by_code.items():
                    total.add_return(code, count)
                    by_sec[sec].add_return(code, count)
        return total, dict(by_sec)


def daily_counts(*, company_id: int, first_day: date, last_day: date) -> DailyCounts:
    """Two grouped queries over the span; rolling windows inside it are summed in Python."""
    start, end = Period(first_day, last_day).bounds()
    debits: dict[date, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rows = (
        originated_batches(company_id=company_id)
        .filter(batched_at__gte=start, batched_at__lt=end)
        .annotate(day=TruncDate("batched_at", tzinfo=EASTERN))
        .values_list("day", "standard_entry_class_code")
        .annotate(count=Sum("debit_count"))
        .order_by()
    )
    for day, sec, count in rows:
        debits[day][sec] += count
    returns: dict[date, dict[tuple[str, str], int]] = defaultdict(lambda: defaultdict(int))
    rows = (
        returns_of_debits(company_id=company_id)
        .filter(returned_at__gte=start, returned_at__lt=end)
        .annotate(day=TruncDate("returned_at", tzinfo=EASTERN))
        .values_list("day", "transaction__method", "transaction__standard_entry_class_code", "return_code")
        .annotate(count=Count("pk"))
        .order_by()
    )
    for day, method, sec, code, count in rows:
        returns[day][(_sec_code(method, sec), code)] += count
    return DailyCounts(debits=debits, returns=returns)


def _files_counts(*, company_id: int, period: Period) -> tuple[Counts, dict[str, Counts]]:
    """Method 2: the period's returns over the debits of the files their original entries went out in."""
    start, end = period.bounds()
    received = returns_of_debits(company_id=company_id).filter(returned_at__gte=start, returned_at__lt=end)
    total, by_sec = Counts(), defaultdict(Counts)
    files_all: set[int] = set()
    files_by_sec: dict[str, set[int]] = defaultdict(set)
    for method, sec, code, file_id in received.values_list(
        "transaction__method",
        "transaction__standard_entry_class_code",
        "return_code",
        "transaction__batch__origination_file_id",
    ):
        sec = _sec_code(method, sec)
        total.add_return(code)
        by_sec[sec].add_return(code)
        files_all.add(file_id)
        files_by_sec[sec].add(file_id)
    in_files = (
        originated_batches(company_id=company_id)
        .filter(origination_file_id__in=files_all)
        .values_list("origination_file_id", "standard_entry_class_code")
        .annotate(count=Sum("debit_count"))
        .order_by()
    )
    for file_id, sec, count in in_files:
        total.debits += count
        if file_id in files_by_sec[sec]:
            by_sec[sec].debits += count
    return total, dict(by_sec)


def return_rates(*, company: Company, period: Period, method: RateMethod = RateMethod.PERIOD) -> RateSheet:
    if method == RateMethod.FILES:
        total, by_sec = _files_counts(company_id=company.pk, period=period)
    else:
        total, by_sec = daily_counts(
            company_id=company.pk, first_day=period.first_day, last_day=period.last_day
        ).counts(period)
    return RateSheet(period=period, method=method, total=total, by_sec_code=by_sec)


@dataclass(frozen=True)
class SeriesPoint:
    day: date
    debits: int
    returns: dict[RateCategory, int]
    rates: dict[RateCategory, float]


def rolling_series(*, company: Company, last_day: date, days: int) -> list[SeriesPoint]:
    """The rolling-60-day company rates (method 1) as of each of `days` days ending on `last_day`."""
    first_point = last_day - timedelta(days=days - 1)
    daily = daily_counts(
        company_id=company.pk, first_day=first_point - timedelta(days=WINDOW_DAYS - 1), last_day=last_day
    )
    points = []
    for offset in range(days):
        day = first_point + timedelta(days=offset)
        total, _ = daily.counts(rolling_period(day))
        points.append(
            SeriesPoint(
                day=day,
                debits=total.debits,
                returns=dict(total.returns),
                rates={category: total.rate(category) for category in CATEGORIES},
            )
        )
    return points


def monthly_sheets(*, company: Company, months: int, now: datetime) -> list[RateSheet]:
    """Method 1 by calendar month, oldest first, ending with the current month."""
    today = today_eastern(now)
    year, month = today.year, today.month
    periods = []
    for _ in range(months):
        periods.append(month_period(year, month))
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    periods.reverse()
    daily = daily_counts(company_id=company.pk, first_day=periods[0].first_day, last_day=periods[-1].last_day)
    sheets = []
    for period in periods:
        total, by_sec = daily.counts(period)
        sheets.append(RateSheet(period=period, method=RateMethod.PERIOD, total=total, by_sec_code=by_sec))
    return sheets


def _count_of(queryset: QuerySet) -> Subquery:
    return Subquery(queryset.order_by().values("company_id").annotate(n=Count("pk")).values("n"))


def current_rate_annotations(*, today: date) -> dict[str, Expression]:
    """Company queryset annotations: `<category>_rate` over the rolling 60 days ending `today` (method 1), as
    Subqueries per company row, so the admin's company list can show and sort by them; null without debits."""
    start, end = rolling_period(today).bounds()
    debits = Subquery(
        originated_batches(company_id=OuterRef("pk"))
        .filter(batched_at__gte=start, batched_at__lt=end)
        .order_by()
        .values("company_id")
        .annotate(n=Sum("debit_count"))
        .values("n")
    )
    received = _debit_returns().filter(company_id=OuterRef("pk"), returned_at__gte=start, returned_at__lt=end)
    annotations = {}
    for category in CATEGORIES:
        counted = received
        if category != RateCategory.OVERALL:
            counted = received.filter(
                return_code__in=[code for code, entry in RETURN_CODES.items() if entry.category == category]
            )
        returns = Coalesce(_count_of(counted), 0)
        annotations[f"{category.value}_rate"] = Cast(returns, FloatField()) / Cast(NullIf(debits, 0), FloatField())
    return annotations
