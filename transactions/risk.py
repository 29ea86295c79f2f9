"""Per-company risk limits on a charge (SPEC 4.7 rule 9, CONTRACT 6): the first rule that trips decides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time

from django.db.models import Sum

from accounts.models import Company
from transactions.calendar import EASTERN
from transactions.models import Status, Transaction

# Charges that never move money do not count towards the daily volume.
VOLUME_EXCLUDED_STATUSES = (Status.DECLINED, Status.VOIDED, Status.REJECTED)


@dataclass(frozen=True)
class RiskInput:
    company: Company
    amount: int
    daily_volume: int | None  # today's volume before this charge; None when the company sets no limit


@dataclass(frozen=True)
class RiskRule:
    status: str
    code: str
    trips: Callable[[RiskInput], bool]
    reason: Callable[[RiskInput], str]


@dataclass(frozen=True)
class RiskOutcome:
    status: str
    code: str
    reason: str


RISK_RULES: tuple[RiskRule, ...] = (
    RiskRule(
        Status.DECLINED,
        "AMT",
        lambda r: r.amount > r.company.decline_over,
        lambda r: f"amount exceeds the decline limit of {r.company.decline_over} cents",
    ),
    RiskRule(
        Status.HELD,
        "AMT",
        lambda r: r.amount > r.company.hold_over,
        lambda r: f"amount exceeds the hold limit of {r.company.hold_over} cents",
    ),
    RiskRule(
        Status.HELD,
        "VOL",
        lambda r: r.daily_volume is not None and r.daily_volume + r.amount > r.company.daily_volume_limit,
        lambda r: f"charge would exceed the daily volume limit of {r.company.daily_volume_limit} cents",
    ),
)


def day_start(now: datetime) -> datetime:
    """Midnight Eastern of `now`'s day: the volume day follows the ACH calendar."""
    return datetime.combine(now.astimezone(EASTERN).date(), time.min, tzinfo=EASTERN)


def daily_volume(*, company: Company, now: datetime) -> int:
    return (
        Transaction.objects.filter(company=company, created_at__gte=day_start(now))
        .exclude(status__in=VOLUME_EXCLUDED_STATUSES)
        .aggregate(total=Sum("amount"))["total"]
        or 0
    )


def risk_assess(*, company: Company, amount: int, now: datetime) -> RiskOutcome | None:
    """Must run inside the charge's transaction.atomic: with a daily limit the company row is locked so
    that concurrent charges sum the volume one after another."""
    volume = None
    if company.daily_volume_limit is not None:
        company = Company.objects.select_for_update().get(pk=company.pk)
        if company.daily_volume_limit is not None:
            volume = daily_volume(company=company, now=now)
    checked = RiskInput(company=company, amount=amount, daily_volume=volume)
    for rule in RISK_RULES:
        if rule.trips(checked):
            return RiskOutcome(status=rule.status, code=rule.code, reason=rule.reason(checked))
    return None
