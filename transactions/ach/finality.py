"""When a debit's money is safe (CONTRACT 15): `settle` stamps each ACH/RCC debit it settles with its return windows
(CONTRACT 12's deadlines) and `fundsAvailableAt` (settlement plus the company's fundsHoldBankingDays); `mark_final`
stamps any debit in a file still without them, then moves settled ones to `available` and `final`, announcing each
once. Finality is an attribute beside the status: a late return still moves a final debit to Returned, and its event
says `afterFinal: true`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db import transaction
from django.db.models import Q, QuerySet

from accounts.models import MerchantSettings
from events.types import EventType
from transactions import calendar
from transactions.events import transactions_event
from transactions.methods import METHODS
from transactions.models import NOT_SEEDED, Finality, Status, Transaction, TransactionType
from transactions.state import Actor, Event, transition_many

RETURNABLE = [code for code, kind in METHODS.items() if kind.returnable]
FINAL_AT_SETTLEMENT = [code for code, kind in METHODS.items() if kind.settles_outside_file and not kind.pays_by_card]
DEBITS = Q(type=TransactionType.DEBIT, method__in=RETURNABLE, account_validation__isnull=True) & NOT_SEEDED


@dataclass
class FinalityRun:
    stamped: int = 0
    available: int = 0
    final: int = 0

    def as_json(self) -> dict[str, int]:
        return {"stamped": self.stamped, "fundsAvailable": self.available, "final": self.final}


def _hold_days(company_ids: set[int]) -> dict[int, int]:
    return dict(
        MerchantSettings.objects.filter(company_id__in=company_ids).values_list("company_id", "funds_hold_banking_days")
    )


def final_moment(unauthorized_until: date) -> datetime:
    """The end of the last banking day an unauthorized return is timely: the start of the next day, Eastern."""
    return datetime.combine(unauthorized_until + timedelta(days=1), time(0), tzinfo=calendar.EASTERN)


def windows_stamp(rows: QuerySet[Transaction]) -> int:
    """The ACH/RCC debits of `rows` get the return windows and `fundsAvailableAt` their settlement day (the effective
    date) gives, one UPDATE per (company, settlement day). `settle` stamps each debit it settles, in the same
    database transaction (CONTRACT 15: the windows are there from the moment it settles, counted from the date it
    settled on, a resent file's new one included); `mark_final` stamps what is in a file and has none yet."""
    debits = rows.filter(DEBITS)
    groups = list(debits.values_list("company_id", "effective_date").distinct())
    hold = _hold_days({company_id for company_id, _day in groups})
    stamped = 0
    for company_id, settled_on in groups:
        available_on = calendar.add_business_days(settled_on, hold.get(company_id, 2))
        stamped += debits.filter(company_id=company_id, effective_date=settled_on).update(
            returns_due_by=calendar.administrative_return_deadline(settled_on),
            unauthorized_returns_due_by=calendar.unauthorized_return_deadline(settled_on),
            funds_available_at=calendar.settlement_time(available_on),
            finality=Finality.PENDING,
        )
    return stamped


def _moved(rows, *, type: str, **changes) -> int:
    """Rows moved on by compare-and-set under their locks (a concurrent run skips them), then announced once."""
    with transaction.atomic():
        ids = list(rows.select_for_update(skip_locked=True).values_list("pk", flat=True))
        Transaction.objects.filter(pk__in=ids).update(**changes)
        transactions_event(ids, type)
    return len(ids)


def finality_mark(*, at: datetime, company_ids: Sequence[int] | None = None) -> FinalityRun:
    """`company_ids`: those companies only (the sandbox clock); else every company."""
    run = FinalityRun()
    rows = Transaction.objects.all() if company_ids is None else Transaction.objects.filter(company_id__in=company_ids)
    with transaction.atomic():
        run.stamped = windows_stamp(rows.filter(batch__isnull=False, returns_due_by__isnull=True))
    settled = rows.filter(DEBITS, status=Status.SETTLED)
    # Funds available is a move of the state owner (the status stays): it posts pending -> available.
    with transaction.atomic():
        available = transition_many(
            settled.filter(finality=Finality.PENDING, funds_available_at__lte=at),
            Event.FUNDS_AVAILABLE,
            actor=Actor.command("mark_final"),
            at=at,
            changes={"finality": Finality.AVAILABLE},
            skip_locked=True,
        )
    run.available = len(available)
    today = calendar.eastern_now(at).date()
    due = settled.filter(finality=Finality.AVAILABLE, unauthorized_returns_due_by__lt=today)
    for until in sorted(set(due.values_list("unauthorized_returns_due_by", flat=True))):
        run.final += _moved(
            due.filter(unauthorized_returns_due_by=until),
            type=EventType.TRANSACTION_FINAL,
            finality=Finality.FINAL,
            final_at=final_moment(until),
        )
    # RTP is final at settlement (CONTRACT 15): stamped and announced the first run after it settled.
    run.final += _moved(
        rows.filter(NOT_SEEDED, method__in=FINAL_AT_SETTLEMENT, status=Status.SETTLED, finality=None),
        type=EventType.TRANSACTION_FINAL,
        finality=Finality.FINAL,
        final_at=at,
    )
    return run
