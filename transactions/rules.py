"""Limits and Company Entry Descriptions every charge follows, whatever its method (transactions.methods)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from transactions.models import TransactionType

MAX_AMOUNT_CENTS = 9_999_999_999  # NACHA's entry amount field is 10 digits of cents
DUPLICATE_WINDOW_HOURS = 24
SAME_DAY_MAX_AMOUNT = 100_000_000  # Nacha: an entry above $1,000,000 is not eligible for Same Day ACH


def signed_amount(txn_type: str, amount: int) -> int:
    """Funds to the merchant: a debit brings money in, a credit sends it out."""
    return amount if txn_type == TransactionType.DEBIT else -amount


# Company Entry Descriptions (CONTRACT 11, Nacha 2026): NACHA alphanumeric, upper case, at most 10 characters.
ENTRY_DESCRIPTION_MAX = 10
ENTRY_DESCRIPTION_PATTERN = r"[A-Z0-9 &'()*+,\-./:;?!@#$%=]*[A-Z0-9][A-Z0-9 &'()*+,\-./:;?!@#$%=]*"
DEFAULT_ENTRY_DESCRIPTION = "PAYMENT"


@dataclass(frozen=True)
class StandardDescription:
    """A description the rules reserve: entries with this purpose, SEC code and direction must carry it,
    and no other entry may."""

    purpose: str
    sec_code: str
    type: str


STANDARD_DESCRIPTIONS: dict[str, StandardDescription] = {
    "PURCHASE": StandardDescription("goods", "WEB", "Debit"),  # consumer online purchases of goods
    "PAYROLL": StandardDescription("payroll", "PPD", "Credit"),  # wages, salaries and similar compensation
}
# Descriptions the rules give a meaning (CONTRACT 12): the service writes them on the entries named, and no ordinary
# charge may carry one.
RESERVED_DESCRIPTIONS: dict[str, str] = {
    "ACCTVERIFY": "the micro-entries of an account validation",
    "REVERSAL": "reversals (POST /transactions/{uuid}/reverse)",
    "RETRY PYMT": "re-presented returned debits (POST /transactions/{uuid}/retry)",
    "RETURN FEE": "return fee entries",
}
_SQUEEZED = re.compile(r"[^0-9A-Z]")


def reads_as(requested: str, word: str) -> bool:
    """Whether a bank's eye reads `requested` as `word`: compared without spaces, punctuation or case, and with
    anything after it (RETRYPYMT, Reversals, RETURN FEES, PURCHASES)."""
    return _SQUEEZED.sub("", requested.upper()).startswith(_SQUEEZED.sub("", word))


def reserved_description(requested: str) -> str | None:
    """The reserved description `requested` stands for, if any (`reads_as`)."""
    return next((reserved for reserved in RESERVED_DESCRIPTIONS if reads_as(requested, reserved)), None)
