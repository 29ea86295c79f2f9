"""Reads of the bank files."""

from __future__ import annotations

from typing import Any

from bank.models import BankFile, BankFileStatus

SHOWN = 10


def bank_files_needing_attention() -> dict[str, Any]:
    """The unacknowledged files, and the rejected ones not yet sent again (their names, the oldest first)."""
    figures: dict[str, Any] = {}
    waiting = {
        "unacknowledged": BankFile.objects.filter(status=BankFileStatus.UNACKNOWLEDGED),
        "rejected": BankFile.objects.filter(status=BankFileStatus.REJECTED, resent_as__isnull=True),
    }
    for key, files in waiting.items():
        names = list(files.order_by("pk").values_list("name", flat=True)[: SHOWN + 1])
        figures[key] = files.count() if len(names) > SHOWN else len(names)
        figures[f"{key}Files"] = names[:SHOWN]
    return figures
