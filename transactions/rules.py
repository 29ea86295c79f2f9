"""What each payment method allows and how it is processed: the one table the charge path reads."""

from __future__ import annotations

from dataclasses import dataclass

from transactions.models import Method, TransactionType

MAX_AMOUNT_CENTS = 9_999_999_999  # NACHA's entry amount field is 10 digits of cents
DUPLICATE_WINDOW_HOURS = 24
CARD_APPROVED_CODE = "00"
CARD_EXPIRED_CODE = "54"  # ISO 8583: expired card


@dataclass(frozen=True)
class MethodRule:
    sec_codes: tuple[str, ...]  # NACHA Standard Entry Class codes the method accepts; empty: it takes none
    default_sec_code: str  # what the charge records when the request names none (CONTRACT 6)
    file_sec_code: str  # the SEC code its entry travels under in a NACHA file when the charge records none
    is_card: bool  # paymentDetails is a card, not a bank account
    same_day_ach: bool  # eligible for Same Day ACH (isSameDay)
    real_time: bool  # settles at creation (RTP): no batch, no processing window


METHOD_RULES: dict[str, MethodRule] = {
    Method.ACH: MethodRule(
        ("WEB", "PPD", "CCD", "TEL"), "WEB", "WEB", is_card=False, same_day_ach=True, real_time=False
    ),
    # An RCC is a payer-authorised draft taken over the phone: the record names no SEC code, its entry is TEL.
    Method.RCC: MethodRule((), "", "TEL", is_card=False, same_day_ach=False, real_time=False),
    Method.RTP: MethodRule((), "", "", is_card=False, same_day_ach=False, real_time=True),
    Method.CRD: MethodRule((), "", "", is_card=True, same_day_ach=False, real_time=False),
}


def signed_amount(txn_type: str, amount: int) -> int:
    """Funds to the merchant: a debit brings money in, a credit sends it out."""
    return amount if txn_type == TransactionType.DEBIT else -amount


# Company Entry Descriptions (CONTRACT 11, Nacha 2026): NACHA alphanumeric, upper case, at most 10 characters.
ENTRY_DESCRIPTION_MAX = 10
ENTRY_DESCRIPTION_PATTERN = r"[A-Z0-9 &'()*+,\-./:;?!@#$%=]*[A-Z0-9][A-Z0-9 &'()*+,\-./:;?!@#$%=]*"
DEFAULT_ENTRY_DESCRIPTION = "PAYMENT"
ORIGINATED_METHODS = (Method.ACH, Method.RCC)


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
# Micro-entries of an account validation carry it; a charge may not.
RESERVED_DESCRIPTIONS = frozenset({"ACCTVERIFY"})
