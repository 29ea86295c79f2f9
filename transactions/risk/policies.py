"""Return policies and return-rate alerts: what `import_returns` does, inside its database transaction, once it
has recorded returns. A company's ReturnPolicy rows override RETURN_CODES' default actions code by code; after
the file, each touched company's rolling-60-day rates are compared with Nacha's thresholds and a warning level
below them, and a level change writes a RiskAlert, an outbox event and, on a breach the policy wants held, a
company-wide DebitHold (new debits HELD with holdCode RTN)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from django.db import IntegrityError, transaction
from django.db.models import QuerySet

from accounts.models import Company, MerchantSettings
from customers.services import customers_deactivate
from events.outbox import event_record
from events.types import EventType
from transactions.models import DebitHold, ReturnPolicy, RiskAction, RiskAlert, Transaction
from transactions.return_codes import RETURN_CODES, PolicyAction, RateCategory
from transactions.risk.return_rates import CATEGORIES, THRESHOLDS, Counts, return_rates, rolling_period, today_eastern
from vault.db import rows_insert, unsaved_instance
from vault.records import iso_utc

# The hold code of a debit held by a debit hold (a breached return rate's, or a return policy's on one customer).
HOLD_CODE = "RTN"

POLICY_FIELDS: dict[PolicyAction, str] = {
    PolicyAction.BLOCK_METHOD: "block_method",
    PolicyAction.DEACTIVATE_CUSTOMER: "deactivate_customer",
    PolicyAction.HOLD_CUSTOMER_DEBITS: "hold_customer_debits",
    PolicyAction.NOTIFY: "notify",
}


def _row_actions(row: ReturnPolicy) -> frozenset[PolicyAction]:
    return frozenset(action for action, name in POLICY_FIELDS.items() if getattr(row, name))


def default_actions(code: str) -> frozenset[PolicyAction]:
    return RETURN_CODES[code].actions


class PolicyBook:
    """The policy rows of some companies, read once; a code without a row follows the default."""

    def __init__(self, company_ids: Iterable[int]) -> None:
        self._rows = {
            (row.company_id, row.return_code): _row_actions(row)
            for row in ReturnPolicy.objects.filter(company_id__in=set(company_ids))
        }

    def actions(self, company_id: int, code: str) -> frozenset[PolicyAction]:
        return self._rows.get((company_id, code), default_actions(code))


def policy_in_force(*, company: Company) -> dict[str, frozenset[PolicyAction]]:
    """Every return code with the actions it takes for this company (codes that take none included)."""
    book = PolicyBook([company.pk])
    return {code: book.actions(company.pk, code) for code in RETURN_CODES}


def risk_action(
    *,
    company_id: int,
    action: str,
    at: datetime,
    txn: Transaction | None = None,
    code: str = "",
    alert: RiskAlert | None = None,
    detail: str = "",
) -> RiskAction:
    """The evidence-log row of one action, unsaved (risk_action_record saves one; bulk callers insert many)."""
    return unsaved_instance(
        RiskAction,
        company_id=company_id,
        action=action,
        return_code=code,
        transaction_id=None if txn is None else txn.pk,
        alert_id=None if alert is None else alert.pk,
        detail=detail[:255],
        taken_at=at,
    )


def risk_action_record(**kwargs) -> RiskAction:
    action = risk_action(**kwargs)
    action.save(force_insert=True)
    return action


def company_debit_hold_place(
    *, company_id: int, reason: str, at: datetime, alert: RiskAlert | None = None
) -> DebitHold | None:
    """An active hold on all the company's new debits; None when one is already active (the partial unique
    constraints keep it one under concurrency too). Customers' holds: customer_debit_holds_place."""
    active = DebitHold.objects.filter(company_id=company_id, customer_id=None, lifted_at__isnull=True)
    if active.exists():
        return None
    MerchantSettings.objects.filter(pk=company_id, has_debit_holds=False).update(has_debit_holds=True)
    try:
        with transaction.atomic():
            return DebitHold.objects.create(
                company_id=company_id, customer_id=None, reason=reason[:255], alert=alert, created_at=at
            )
    except IntegrityError:  # a concurrent import placed the same hold first
        return None


@transaction.atomic
def debit_holds_lift(*, holds: QuerySet[DebitHold], at: datetime) -> int:
    """Lift active holds; a company left without any stops reading them on every charge."""
    lifted = list(holds.select_for_update().filter(lifted_at__isnull=True).values_list("pk", "company_id"))
    DebitHold.objects.filter(pk__in=[pk for pk, _ in lifted]).update(lifted_at=at)
    for company_id in {company_id for _, company_id in lifted}:
        still = DebitHold.objects.filter(company_id=company_id, lifted_at__isnull=True).exists()
        MerchantSettings.objects.filter(pk=company_id).update(has_debit_holds=still)
    return len(lifted)


@dataclass(frozen=True)
class ReturnFollowUp:
    """Policy actions on the customer of a returned transaction, applied after the chunk's writes: the customer
    row is locked after the transactions, and no charge path holds a transaction lock while it waits for one."""

    txn: Transaction
    code: str
    actions: frozenset[PolicyAction]


def customer_debit_holds_place(wanted: Iterable[tuple[int, int, str]], *, at: datetime) -> set[tuple[int, int]]:
    """Holds on customers' new debits, many at once, (company, customer, reason) each: the (company, customer)
    pairs it placed a hold on. A customer already held keeps its hold; the first reason of a customer wins."""
    reasons: dict[tuple[int, int], str] = {}
    for company_id, customer_id, reason in wanted:
        reasons.setdefault((company_id, customer_id), reason)
    if not reasons:
        return set()
    companies, customers = {pair[0] for pair in reasons}, {pair[1] for pair in reasons}
    live = DebitHold.objects.filter(company_id__in=companies, customer_id__in=customers, lifted_at__isnull=True)
    held = set(live.values_list("company_id", "customer_id"))
    new = {pair: reason for pair, reason in reasons.items() if pair not in held}
    if not new:
        return set()
    MerchantSettings.objects.filter(pk__in={pair[0] for pair in new}, has_debit_holds=False).update(
        has_debit_holds=True
    )
    # A hold a concurrent import placed first stays (the partial unique constraints keep one per customer).
    DebitHold.objects.bulk_create(
        [
            DebitHold(company_id=company_id, customer_id=customer_id, reason=reason[:255], created_at=at)
            for (company_id, customer_id), reason in new.items()
        ],
        ignore_conflicts=True,
    )
    ours = live.filter(created_at=at, customer_id__in={pair[1] for pair in new})
    return set(ours.values_list("company_id", "customer_id")) & set(new)


def return_followups_apply(followups: Iterable[ReturnFollowUp], *, at: datetime) -> None:
    """The policy actions of a chunk's returns beyond blocking the method, each kind in a few statements: a notice
    alert per return, the customers deactivated and the customers' debits held (once a customer, for the first
    return that asks), each with its risk action."""
    followups = list(followups)
    notified = [follow for follow in followups if PolicyAction.NOTIFY in follow.actions]
    alerts = RiskAlert.objects.bulk_create(
        [
            RiskAlert(
                company_id=follow.txn.company_id,
                category=follow.code,
                level=RiskAlert.Level.NOTICE,
                as_of=today_eastern(at),
                transaction=follow.txn,
                created_at=at,
            )
            for follow in notified
        ]
    )
    actions = [
        risk_action(
            company_id=alert.company_id,
            action=PolicyAction.NOTIFY,
            at=at,
            txn=follow.txn,
            code=follow.code,
            alert=alert,
        )
        for follow, alert in zip(notified, alerts, strict=True)
    ]
    saved = [follow for follow in followups if follow.txn.customer_id is not None]  # a one-off charge has no customer
    deactivating = [follow for follow in saved if PolicyAction.DEACTIVATE_CUSTOMER in follow.actions]
    deactivated = customers_deactivate(ids=[follow.txn.customer_id for follow in deactivating])
    actions += _first_of_each_customer(deactivating, deactivated, PolicyAction.DEACTIVATE_CUSTOMER, at=at)
    held = [follow for follow in saved if PolicyAction.HOLD_CUSTOMER_DEBITS in follow.actions]
    placed = customer_debit_holds_place(
        [
            (
                follow.txn.company_id,
                follow.txn.customer_id,
                f"the customer's new debits are held after a return {follow.code} {RETURN_CODES[follow.code].reason}",
            )
            for follow in held
        ],
        at=at,
    )
    actions += _first_of_each_customer(
        held, {customer_id for _company_id, customer_id in placed}, PolicyAction.HOLD_CUSTOMER_DEBITS, at=at
    )
    rows_insert(RiskAction, actions)


def _first_of_each_customer(
    followups: list[ReturnFollowUp], acted_on: set[int], action: PolicyAction, *, at: datetime
) -> list[RiskAction]:
    """One risk action per customer the action was taken on, for the first of its returns here."""
    actions, left = [], set(acted_on)
    for follow in followups:
        if follow.txn.customer_id in left:
            left.discard(follow.txn.customer_id)
            actions.append(
                risk_action(company_id=follow.txn.company_id, action=action, at=at, txn=follow.txn, code=follow.code)
            )
    return actions


# Level order: a change upwards is an alert with an event; a change downwards is recorded (warning, cleared).
LEVEL_RANK = {None: 0, RiskAlert.Level.WARNING: 1, RiskAlert.Level.BREACHED: 2}
LEVEL_EVENTS = {
    RiskAlert.Level.WARNING: EventType.RISK_THRESHOLD_WARNING,
    RiskAlert.Level.BREACHED: EventType.RISK_THRESHOLD_BREACHED,
}


def rate_level(*, returns: int, debits: int, threshold: float, warning_percent: int) -> str | None:
    """Breached above the threshold, warning from `warning_percent`% of it; compared as exact fractions."""
    if not debits:
        return None
    rate, limit = Fraction(returns, debits), Fraction(str(threshold))
    if rate > limit:
        return RiskAlert.Level.BREACHED
    if rate * 100 >= limit * warning_percent:
        return RiskAlert.Level.WARNING
    return None


def current_level(*, company_id: int, category: str) -> str | None:
    last = (
        RiskAlert.objects.filter(company_id=company_id, category=category)
        .exclude(level=RiskAlert.Level.NOTICE)
        .order_by("-created_at", "-pk")
        .values_list("level", flat=True)
        .first()
    )
    return None if last in (None, RiskAlert.Level.CLEARED) else last


def alert_data(alert: RiskAlert, *, company: Company, debits_held: bool) -> dict:
    """What a risk.* event carries (CONTRACT 9): the alert, as the evidence report lists it."""
    return {
        "uuid": str(alert.uuid),
        "companyUuid": str(company.uuid),
        "category": alert.category,
        "level": alert.level,
        "windowDays": rolling_period(alert.as_of).days,
        "asOf": alert.as_of.isoformat(),
        "returns": alert.returns,
        "debits": alert.debits,
        "rate": alert.rate,
        "threshold": alert.threshold,
        "warningPercent": company.merchant_settings.return_rate_warning_percent,
        "debitsHeld": debits_held,
        "createdAt": iso_utc(alert.created_at),
    }


def _lifted_by(company: Company) -> str:
    """Who lifts a company's debit hold, as its reason (and every held debit's holdReason) says."""
    if company.is_sandbox:
        return "the sandbox's risk reset (POST /sandbox/risk/reset) lifts the hold and releases them, or risk staff do"
    return "the platform's risk staff lift it (back office: Debit holds) after a review with you"


def breach_holds(merchant_settings: MerchantSettings, *, debits: int) -> bool:
    """Whether a breach holds the company's new debits: its policy says so and the window holds enough debits for a
    rate to mean something (`return_rate_minimum_debits`)."""
    return merchant_settings.hold_debits_on_breach and debits >= merchant_settings.return_rate_minimum_debits


def _category_alert(*, company: Company, category: RateCategory, counts: Counts, at: datetime) -> RiskAlert | None:
    level = rate_level(
        returns=counts.returns[category],
        debits=counts.debits,
        threshold=THRESHOLDS[category],
        warning_percent=company.merchant_settings.return_rate_warning_percent,
    )
    previous = current_level(company_id=company.pk, category=category.value)
    if level == previous:
        return None
    alert = RiskAlert.objects.create(
        company=company,
        category=category.value,
        level=level or RiskAlert.Level.CLEARED,
        returns=counts.returns[category],
        debits=counts.debits,
        rate=counts.rate(category),
        threshold=THRESHOLDS[category],
        as_of=today_eastern(at),
        created_at=at,
    )
    held = False
    if level == RiskAlert.Level.BREACHED and breach_holds(company.merchant_settings, debits=counts.debits):
        hold = company_debit_hold_place(
            company_id=company.pk,
            reason=f"{category.value} return rate {counts.returns[category]}/{counts.debits} is over the "
            f"{THRESHOLDS[category]:.1%} threshold: new debits are held until {_lifted_by(company)}",
            at=at,
            alert=alert,
        )
        if hold is not None:
            held = True
            risk_action_record(
                company_id=company.pk,
                action=RiskAction.Kind.HOLD_COMPANY_DEBITS,
                at=at,
                alert=alert,
                detail=hold.reason,
            )
    if LEVEL_RANK[level] > LEVEL_RANK[previous]:
        event_record(
            company_id=company.pk,
            type=LEVEL_EVENTS[level],
            object_uuid=alert.uuid,
            data=alert_data(alert, company=company, debits_held=held),
        )
    return alert


def return_rate_alerts_evaluate(*, company_ids: Iterable[int], at: datetime) -> list[RiskAlert]:
    """Each company's rolling-60-day rates as of `at`'s day against its levels. The company row is locked so two
    imports touching one company compare and write one after the other."""
    alerts = []
    locked = Company.objects.select_for_update(of=("self",)).select_related("merchant_settings")
    for company in locked.filter(pk__in=set(company_ids)).order_by("pk"):
        sheet = return_rates(company=company, period=rolling_period(today_eastern(at)))
        for category in CATEGORIES:
            alert = _category_alert(company=company, category=category, counts=sheet.total, at=at)
            if alert is not None:
                alerts.append(alert)
    return alerts
