"""Which Standard Entry Class code an ACH entry may travel under (CONTRACT 12, Nacha 2026): by its direction and
by whose account it is. The one table of it; ACH and RCC (methods/ach.py, methods/rcc.py) read it."""

from __future__ import annotations

from dataclasses import dataclass

from customers.models import Customer
from transactions.models import TransactionType
from vault.error_codes import ErrorCode
from vault.errors import ApiError

CONSUMER, ORGANIZATION = Customer.HolderType.CONSUMER, Customer.HolderType.ORGANIZATION
SEC_FIELD = "standardEntryClassCode"
HOLDER_WORDS = {CONSUMER: "a consumer", ORGANIZATION: "an organization"}


@dataclass(frozen=True)
class SecRule:
    credits: bool  # a credit may travel under it (every code here carries debits)
    holder: str  # the only account holder it is for
    rule: str  # the rule in words, for the 400 that refuses a charge
    # Positions 77-78 of its entry detail: WEB and TEL carry a Payment Type Code, S (single entry) unless the entry
    # goes under a recurring mandate (R, CONTRACT 14); PPD and CCD carry discretionary data, left blank.
    payment_type_code: str = ""


SEC_RULES: dict[str, SecRule] = {
    "PPD": SecRule(credits=True, holder=CONSUMER, rule="PPD is for a consumer's account (debit or credit)"),
    "CCD": SecRule(credits=True, holder=ORGANIZATION, rule="CCD is for an organization's account (debit or credit)"),
    "WEB": SecRule(
        credits=False,
        holder=CONSUMER,
        rule="WEB is a debit to a consumer's account, authorised online",
        payment_type_code="S",
    ),
    "TEL": SecRule(
        credits=False,
        holder=CONSUMER,
        rule="TEL is a debit to a consumer's account, authorised by phone",
        payment_type_code="S",
    ),
}


RECURRING_PAYMENT_TYPE_CODE = "R"


def payment_type_code(sec_code: str, *, recurring: bool = False) -> str:
    rule = SEC_RULES.get(sec_code)
    if rule is None or not rule.payment_type_code:
        return ""
    return RECURRING_PAYMENT_TYPE_CODE if recurring else rule.payment_type_code


def account_holder(customer: Customer | None) -> str | None:
    """Whose account a charge moves money on: the customer's accountHolderType; without one, a consumer when it has
    a first and a last name, an organization when it has only a companyName; None when nothing says (a charge with
    no customer), which the direction rule alone then judges."""
    if customer is None:
        return None
    if customer.account_holder_type:
        return customer.account_holder_type
    if customer.first_name and customer.last_name:
        return CONSUMER
    if customer.company_name and not (customer.first_name or customer.last_name):
        return ORGANIZATION
    return None


def default_sec_code(*, type: str, holder: str | None) -> str:
    """WEB for a consumer's debit, PPD for a consumer's credit, CCD for an organization."""
    if holder == ORGANIZATION:
        return "CCD"
    return "WEB" if type == TransactionType.DEBIT else "PPD"


def sec_code_check(code: str, *, type: str, holder: str | None, prefix: str = "") -> None:
    """400 `sec_code_not_allowed` naming standardEntryClassCode when the code does not fit the direction or
    the holder."""
    rule = SEC_RULES[code]
    if type == TransactionType.CREDIT and not rule.credits:
        refused = f"a credit cannot travel as {code}"
    elif holder is not None and holder != rule.holder:
        refused = f"the customer is {HOLDER_WORDS[holder]}"
    else:
        return
    raise ApiError(f"{prefix}{rule.rule}: {refused}", field=SEC_FIELD, code=ErrorCode.SEC_CODE_NOT_ALLOWED)
