"""Credit-side fraud monitoring (Nacha 2.2.4 phase 2, the ACH rules; ACH review section 4): the company's rules that
hold a credit (holdCode NEW) before it pays out to an account that may not be the receiver's: one added or changed
(a NOC correction included) within N banking days, or one receiving more than the company's velocity allows.
transactions.risk.limits asks `credit_hold_reason` for every credit to a bank account; the hold is released like any
other (release_holds, the admin), and the yearly review lists the rules (`credit_rules`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from django.db.models import Count, Q, Sum

from accounts.models import Company
from payments.models import PaymentMethod
from transactions import calendar
from transactions.models import ChangeNotice, Status, Transaction, TransactionType

HOLD_CODE = "NEW"
# Credits that never paid out do not count towards a receiver's velocity.
NOT_PAID_OUT = (Status.DECLINED, Status.VOIDED, Status.REJECTED)


@dataclass(frozen=True)
class ReceiverAccount:
    """The account a credit pays: its keyed hashes, and the saved method it came from (if any)."""

    account_number_hash: str
    routing_number: str
    saved: PaymentMethod | None

    @property
    def entries(self) -> Q:
        return Q(account_number_hash=self.account_number_hash, routing_number=self.routing_number)


def monitors_credits(company: Company) -> bool:
    settings = company.merchant_settings
    return any(
        value is not None
        for value in (
            settings.credit_hold_new_account_days,
            settings.credit_velocity_amount,
            settings.credit_velocity_count,
        )
    )


def _since_banking_days(now: datetime, days: int) -> datetime:
    """Midnight Eastern of the banking day `days` banking days before today: "within N banking days"."""
    first = calendar.business_days_before(calendar.eastern_now(now).date(), days)
    return datetime.combine(first, time.min, tzinfo=calendar.EASTERN)


def _is_new(company: Company, account: ReceiverAccount, since: datetime) -> bool:
    """A saved method created or corrected by a NOC since then; a one-off account the company never paid or
    debited before then."""
    if account.saved is not None:
        if account.saved.created_at >= since:
            return True
        return ChangeNotice.objects.filter(
            company=company, transaction__payment_method=account.saved, noc_received_at__gte=since
        ).exists()
    known = Transaction.objects.filter(account.entries, company=company, created_at__lt=since)
    return not known.exists()


def _over_velocity(company: Company, account: ReceiverAccount, amount: int, now: datetime) -> str | None:
    settings = company.merchant_settings
    window = timedelta(days=settings.credit_velocity_days)
    sent = (
        Transaction.objects.filter(
            account.entries,
            company=company,
            type=TransactionType.CREDIT,
            created_at__gt=now - window,
            account_validation__isnull=True,
        )
        .exclude(status__in=NOT_PAID_OUT)
        .aggregate(total=Sum("amount"), count=Count("pk"))
    )
    total, count = (sent["total"] or 0) + amount, sent["count"] + 1
    days = _days(settings.credit_velocity_days)
    if settings.credit_velocity_amount is not None and total > settings.credit_velocity_amount:
        return f"credits to this account would reach {total} cents in {days} (limit {settings.credit_velocity_amount})"
    if settings.credit_velocity_count is not None and count > settings.credit_velocity_count:
        return f"credits to this account would reach {count} in {days} (limit {settings.credit_velocity_count})"
    return None


def _days(count: int) -> str:
    return f"{count} day{'s' if count != 1 else ''}"


def credit_hold_reason(*, company: Company, account: ReceiverAccount, amount: int, now: datetime) -> str | None:
    """Why the company's credit rules hold this credit, or None. Runs inside the charge's transaction."""
    settings = company.merchant_settings
    days = settings.credit_hold_new_account_days
    if days is not None and _is_new(company, account, _since_banking_days(now, days)):
        return f"credit to an account added or changed within {days} banking days"
    return _over_velocity(company, account, amount, now)


def credit_rules(company: Company) -> list[dict]:
    """The credit rules in force, as the risk report and the yearly review list them."""
    settings = company.merchant_settings
    velocity_days = _days(settings.credit_velocity_days)
    return [
        {
            "rule": "credit_to_new_account",
            "holdCode": HOLD_CODE,
            "enabled": settings.credit_hold_new_account_days is not None,
            "detail": f"account added or changed (NOC included) within {settings.credit_hold_new_account_days} "
            "banking days"
            if settings.credit_hold_new_account_days is not None
            else "off",
        },
        {
            "rule": "credit_velocity_amount",
            "holdCode": HOLD_CODE,
            "enabled": settings.credit_velocity_amount is not None,
            "detail": f"over {settings.credit_velocity_amount} cents per receiver account in {velocity_days}"
            if settings.credit_velocity_amount is not None
            else "off",
        },
        {
            "rule": "credit_velocity_count",
            "holdCode": HOLD_CODE,
            "enabled": settings.credit_velocity_count is not None,
            "detail": f"over {settings.credit_velocity_count} credits per receiver account in {velocity_days}"
            if settings.credit_velocity_count is not None
            else "off",
        },
    ]
