"""The ledger's batch work: balance checkpoints (`checkpoint_ledger`) and the books' check (`verify_ledger`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Max, Q, Sum

from ledger.models import USD, BalanceCheckpoint, JournalEntry, Posting
from ledger.selectors import account_balances

# Checks of the ledger against what caused it, each a function (at) -> list of mismatches (JSON-ready dicts). An app
# above the ledger registers its own when it is ready (transactions: every transaction's status against its entries),
# so the ledger runs them without knowing their code.
CHECKS: list[Callable[[datetime], list[dict[str, Any]]]] = []


def ledger_check_register(check: Callable[[datetime], list[dict[str, Any]]]) -> None:
    if check not in CHECKS:
        CHECKS.append(check)


def _committed_through() -> int:
    """The highest posting id below which every posting is committed. PostgreSQL: a SHARE lock waits for every
    transaction that is inserting postings to end (and holds new ones back for the moment of one read); SQLite
    writes one transaction at a time."""
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("LOCK TABLE ledger_posting IN SHARE MODE")
        return Posting.objects.aggregate(n=Max("id"))["n"] or 0


def ledger_checkpoint(*, at: datetime) -> dict[str, int]:
    """A checkpoint of every company's accounts: the sums of its postings through the committed id made at or before
    `at`, set-based (one GROUP BY over the postings, one insert)."""
    through_id = _committed_through()
    sums = (
        Posting.objects.filter(id__lte=through_id, created_at__lte=at, currency=USD)
        .values("company_id", "account")
        .annotate(total=Sum("amount"))
        .values_list("company_id", "account", "total")
    )
    rows = [
        BalanceCheckpoint(
            company_id=company_id, account=account, through_id=through_id, as_of=at, balance=total, currency=USD
        )
        for company_id, account, total in sums
    ]
    BalanceCheckpoint.objects.bulk_create(rows, batch_size=1000, ignore_conflicts=True)
    return {"checkpoints": len(rows), "companies": len({row.company_id for row in rows}), "throughId": through_id}


@dataclass
class LedgerCheck:
    entries: int = 0
    postings: int = 0
    imbalances: int = 0
    mismatches: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "postings": self.postings,
            "imbalances": self.imbalances,
            "mismatches": self.mismatches,
        }

    @property
    def failed(self) -> bool:
        return bool(self.imbalances or self.mismatches)


MISMATCHES_SHOWN = 100


def _unbalanced_entries() -> list[dict[str, Any]]:
    """Entries whose postings do not sum to zero, or that have fewer than two."""
    sums = Posting.objects.values("entry_id").annotate(total=Sum("amount"), legs=Count("id"))
    bad = sums.filter(~Q(total=0) | Q(legs__lt=2)).values_list("entry_id", "total", "legs")[:MISMATCHES_SHOWN]
    found = [{"entry": entry_id, "sum": total, "postings": legs} for entry_id, total, legs in bad]
    empty = JournalEntry.objects.filter(postings__isnull=True).values_list("id", flat=True)[:MISMATCHES_SHOWN]
    return found + [{"entry": entry_id, "sum": 0, "postings": 0} for entry_id in empty]


def _checkpoint_mismatches() -> list[dict[str, Any]]:
    """Each company's latest checkpoint against its postings summed again from the first."""
    found = []
    latest = BalanceCheckpoint.objects.values("company_id").annotate(as_of=Max("as_of"))
    for company_id, as_of in latest.values_list("company_id", "as_of"):
        rows = BalanceCheckpoint.objects.filter(company_id=company_id, as_of=as_of)
        through_id = rows.aggregate(n=Max("through_id"))["n"]
        kept = dict(rows.filter(through_id=through_id).values_list("account", "balance"))
        summed = dict(
            Posting.objects.filter(company_id=company_id, id__lte=through_id, created_at__lte=as_of)
            .values("account")
            .annotate(total=Sum("amount"))
            .values_list("account", "total")
        )
        for account in sorted(set(kept) | set(summed)):
            if kept.get(account, 0) != summed.get(account, 0):
                found.append(
                    {
                        "check": "checkpoint",
                        "company": company_id,
                        "account": account,
                        "checkpoint": kept.get(account, 0),
                        "postings": summed.get(account, 0),
                    }
                )
    return found


def _balance_mismatches() -> list[dict[str, Any]]:
    """Every company's balances as GET /balance reads them (checkpoint and what follows) against a plain sum."""
    found = []
    summed: dict[int, dict[str, int]] = {}
    for company_id, account, total in (
        Posting.objects.values("company_id", "account")
        .annotate(total=Sum("amount"))
        .values_list("company_id", "account", "total")
    ):
        summed.setdefault(company_id, {})[account] = total
    for company_id, totals in summed.items():
        read = account_balances(company_id=company_id)
        for account, total in totals.items():
            if read[account] != total:
                found.append({"check": "balance", "company": company_id, "account": account, "read": read[account]})
    return found


def ledger_verify(*, at: datetime) -> LedgerCheck:
    """Every entry sums to zero, every balance equals its postings, and every registered check of what caused them
    passes (CONTRACT 17)."""
    check = LedgerCheck(entries=JournalEntry.objects.count(), postings=Posting.objects.count())
    unbalanced = _unbalanced_entries()
    check.imbalances = len(unbalanced)
    check.mismatches += [{"check": "balanced", **row} for row in unbalanced]
    check.mismatches += _checkpoint_mismatches()
    check.mismatches += _balance_mismatches()
    for registered in CHECKS:
        check.mismatches += registered(at)
    check.mismatches = check.mismatches[:MISMATCHES_SHOWN]
    return check
