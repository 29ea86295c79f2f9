"""Writes of the reporting app: only repairs. Its tables are otherwise kept by database triggers."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Count, Sum

from reporting.models import TransactionCount
from transactions.models import Transaction


@dataclass(frozen=True)
class CountMismatch:
    company_id: int
    kept: int
    counted: int


def _kept(company_ids: list[int] | None = None) -> dict[int, int]:
    rows = TransactionCount.objects.all()
    if company_ids is not None:
        rows = rows.filter(company_id__in=company_ids)
    return dict(rows.values("company_id").annotate(n=Sum("row_count")).values_list("company_id", "n"))


def _counted(company_ids: list[int] | None = None) -> dict[int, int]:
    rows = Transaction.objects.all()
    if company_ids is not None:
        rows = rows.filter(company_id__in=company_ids)
    return dict(rows.values("company_id").annotate(n=Count("id")).values_list("company_id", "n"))


def verify_transaction_counts(*, repair: bool) -> list[CountMismatch]:
    """Compares each company's TransactionCount sum with count(*) and, with `repair`, sets it to the count.

    The first comparison runs without locks, so a charge committing between the two reads can make a company look
    wrong; each suspect is compared again under a SHARE lock on the transaction table (charges wait for the
    moment it takes to count one company, and no uncommitted insert is missed) and repaired only if still wrong."""
    kept, counted = _kept(), _counted()
    suspects = sorted(c for c in kept.keys() | counted.keys() if kept.get(c, 0) != counted.get(c, 0))
    mismatches = []
    for company_id in suspects:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("LOCK TABLE transactions_transaction IN SHARE MODE")
            now_kept = _kept([company_id]).get(company_id, 0)
            now_counted = _counted([company_id]).get(company_id, 0)
            if now_kept == now_counted:
                continue
            mismatches.append(CountMismatch(company_id, now_kept, now_counted))
            if repair:
                TransactionCount.objects.filter(company_id=company_id).update(row_count=0)
                TransactionCount.objects.update_or_create(
                    company_id=company_id, slot=0, defaults={"row_count": now_counted}
                )
    return mismatches
