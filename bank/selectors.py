"""Reads of the bank files."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, Sum

from bank.models import BankFile, BankFileStatus
from transactions.models import MICRO_ENTRY, Transaction, TransactionType

SHOWN = 10


def bank_files_needing_attention() -> dict[str, Any]:
    """The unacknowledged files, the rejected ones not yet sent again, and those whose answers from the bank contradict
    each other (their names, the oldest first)."""
    figures: dict[str, Any] = {}
    waiting = {
        "unacknowledged": BankFile.objects.filter(status=BankFileStatus.UNACKNOWLEDGED),
        "rejected": BankFile.objects.filter(status=BankFileStatus.REJECTED, resent_as__isnull=True),
        "exception": BankFile.objects.filter(status=BankFileStatus.EXCEPTION),
    }
    for key, files in waiting.items():
        names = list(files.order_by("pk").values_list("name", flat=True)[: SHOWN + 1])
        figures[key] = files.count() if len(names) > SHOWN else len(names)
        figures[f"{key}Files"] = names[:SHOWN]
    return figures


def entry_figures(origination_file_id: int) -> dict[int, dict[str, int]]:
    """Each company's entries in the file: counts and totals of its debits and credits (prenotes counted apart,
    and micro-entries counted but left out of the totals: their amounts are the payer's secret, CONTRACT 12)."""
    rows = (
        Transaction.objects.filter(batch__origination_file_id=origination_file_id)
        .values("company_id", "type")
        .annotate(
            entries=Count("pk"),
            prenotes=Count("pk", filter=Q(amount=0, account_validation__isnull=False)),
            micro=Count("pk", filter=MICRO_ENTRY),
            total=Sum("amount", filter=Q(account_validation__isnull=True)),
        )
        .order_by()
    )
    figures: dict[int, dict[str, int]] = {}
    for row in rows:
        company = figures.setdefault(
            row["company_id"],
            dict.fromkeys(
                (
                    "entryCount",
                    "debitCount",
                    "debitTotal",
                    "creditCount",
                    "creditTotal",
                    "prenoteCount",
                    "accountVerificationCount",
                ),
                0,
            ),
        )
        side = "debit" if row["type"] == TransactionType.DEBIT else "credit"
        company["entryCount"] += row["entries"]
        company["prenoteCount"] += row["prenotes"]
        company["accountVerificationCount"] += row["micro"]
        company[f"{side}Count"] += row["entries"] - row["prenotes"] - row["micro"]
        company[f"{side}Total"] += row["total"] or 0
    return figures
