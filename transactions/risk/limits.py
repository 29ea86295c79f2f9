"""Per-company risk limits on a charge (SPEC 4.7 rule 9, CONTRACT 6): the first rule that trips decides."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time

from django.db import connection
from django.db.models import F, Q, Sum

from accounts.models import Company, MerchantSettings
from customers.models import Customer
from transactions.calendar import EASTERN
from transactions.methods import PaymentMethodKind
from transactions.models import DailyVolume, DebitHold, Status, Transaction, TransactionType
from transactions.risk import credit_monitoring

# Charges that never move money do not count towards the daily volume; nor do account validations' entries (the
# service's, not the merchant's; and a micro-deposit's amount must not show through a volume hold). The triggers of
# transactions 0024 count the same on PostgreSQL: a change here needs a migration of theirs.
VOLUME_EXCLUDED_STATUSES = (Status.DECLINED, Status.VOIDED, Status.REJECTED)


@dataclass(frozen=True)
class RiskInput:
    company: Company
    amount: int
    daily_volume: int | None  # today's volume before this charge; None when the company sets no limit
    debit_hold: str | None = None  # why the return-rate program holds this debit (company or customer), if it does
    credit_hold: str | None = None  # why the credit monitoring rules hold this credit, if they do

    @property
    def settings(self) -> MerchantSettings:
        return self.company.merchant_settings


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
        lambda r: r.amount > r.settings.decline_over,
        lambda r: f"amount exceeds the decline limit of {r.settings.decline_over} cents",
    ),
    RiskRule(
        Status.HELD,
        "RTN",
        lambda r: r.debit_hold is not None,
        lambda r: r.debit_hold,
    ),
    RiskRule(
        Status.HELD,
        "AMT",
        lambda r: r.amount > r.settings.hold_over,
        lambda r: f"amount exceeds the hold limit of {r.settings.hold_over} cents",
    ),
    RiskRule(
        Status.HELD,
        "VOL",
        lambda r: r.daily_volume is not None and r.daily_volume + r.amount > r.settings.daily_volume_limit,
        lambda r: f"charge would exceed the daily volume limit of {r.settings.daily_volume_limit} cents",
    ),
    RiskRule(
        Status.HELD,
        credit_monitoring.HOLD_CODE,
        lambda r: r.credit_hold is not None,
        lambda r: r.credit_hold,
    ),
)


def day_start(now: datetime) -> datetime:
    """Midnight Eastern of `now`'s day: the volume day follows the ACH calendar."""
    return datetime.combine(now.astimezone(EASTERN).date(), time.min, tzinfo=EASTERN)


def daily_volume(*, company: Company, now: datetime) -> int:
    """Today's volume: on PostgreSQL the few rows the transaction table's triggers keep for the day (transactions
    0024), whatever the day's number of entries; elsewhere the sum of the day's entries."""
    if connection.vendor == "postgresql":
        kept = DailyVolume.objects.filter(company=company, day=now.astimezone(EASTERN).date())
        return kept.aggregate(total=Sum("amount"))["total"] or 0
    return (
        Transaction.objects.filter(company=company, created_at__gte=day_start(now), account_validation__isnull=True)
        .exclude(status__in=VOLUME_EXCLUDED_STATUSES)
        .aggregate(total=Sum("amount"))["total"]
        or 0
    )


def debit_hold_reason(*, company: Company, customer: Customer | None) -> str | None:
    """The reason of the active return-rate hold on the company's debits, or on this customer's, if any."""
    customers = Q(customer__isnull=True) if customer is None else Q(customer__isnull=True) | Q(customer=customer)
    hold = (
        DebitHold.objects.filter(customers, company=company, lifted_at__isnull=True)
        .order_by(F("customer_id").asc(nulls_first=True), "pk")  # the company-wide hold first
        .values_list("reason", flat=True)
        .first()
    )
    return hold


def _monitored_credit(*, company: Company, type: str) -> bool:
    return type == TransactionType.CREDIT and credit_monitoring.monitors_credits(company)


def risk_assess_locks(*, company: Company, type: str) -> bool:
    """Whether risk_assess may lock the company row (a daily volume limit, a monitored credit), and so must run in
    the charge's transaction."""
    return company.merchant_settings.daily_volume_limit is not None or _monitored_credit(company=company, type=type)


def risk_assess(
    *,
    company: Company,
    amount: int,
    now: datetime,
    method: PaymentMethodKind,
    type: str,
    customer: Customer | None,
    receiver: credit_monitoring.ReceiverAccount | None = None,
) -> RiskOutcome | None:
    """Must run inside the charge's transaction.atomic: with a daily limit the company row is locked so
    that concurrent charges sum the volume one after another. `receiver` is the bank account a credit pays
    (transactions.risk.credit_monitoring)."""
    volume = None
    monitored_credit = receiver is not None and _monitored_credit(company=company, type=type)
    if company.merchant_settings.daily_volume_limit is not None or monitored_credit:
        # Concurrent charges then add up one after another: the daily volume, a receiver's credit velocity.
        company = Company.objects.select_for_update(of=("self",)).select_related("merchant_settings").get(pk=company.pk)
        if company.merchant_settings.daily_volume_limit is not None:
            volume = daily_volume(company=company, now=now)
    held = None
    if (
        company.merchant_settings.has_debit_holds and type == TransactionType.DEBIT and method.returnable
    ):  # debits that come back as returns
        held = debit_hold_reason(company=company, customer=customer)
    credit_hold = None
    if monitored_credit:
        credit_hold = credit_monitoring.credit_hold_reason(company=company, account=receiver, amount=amount, now=now)
    checked = RiskInput(company=company, amount=amount, daily_volume=volume, debit_hold=held, credit_hold=credit_hold)
    for rule in RISK_RULES:
        if rule.trips(checked):
            return RiskOutcome(status=rule.status, code=rule.code, reason=rule.reason(checked))
    return None
