"""SPEC 4.7's rules for a charge, in rule order, each where a reader looking for "rule n" finds it. Rule 4
(whole cents) is the serializer's field type and rule 9 (risk) is transactions.risk.limits; the processing day
(CONTRACT 6) closes the module."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from accounts.models import Company
from customers.errors import CustomerInactive
from customers.models import Customer
from customers.selectors import customer_get
from payments import numbers
from payments.errors import PaymentMethodBlocked
from payments.models import PaymentMethod
from transactions.errors import IncompatibleMethod
from transactions.methods import PaymentMethodKind
from transactions.methods.bank import bank_fields, saved_bank_fields
from transactions.rules import (
    DEFAULT_ENTRY_DESCRIPTION,
    RESERVED_DESCRIPTIONS,
    SAME_DAY_MAX_AMOUNT,
    STANDARD_DESCRIPTIONS,
    reads_as,
    reserved_description,
)
from transactions.selectors import saved_method_for_charge
from vault.db import RowColumn
from vault.error_codes import ErrorCode
from vault.errors import ApiError, NotFound

PAYMENT_METHOD_NEEDS_CUSTOMER = "customerUuid is required when paymentMethodUuid is provided"
# A saved method's charge is checked as an ordinary request before the method is loaded (SPEC 4, rule 2), so its
# paymentDetails must pass too; the message gives the smallest that does (docs/charges.md shows the same).
SMALLEST_BANK_DETAILS = (
    '{"name": "x", "accountType": "Checking", "accountNumber": "0000", "routingNumber": "021000021"}'
)
BANK_DETAILS_REQUIRED = (
    "paymentDetails is required for ACH, RCC and RTP, also when a saved method is charged: the request is checked as "
    "an ordinary one before the saved method is loaded, whose holder and account then replace these; the smallest "
    f"that passes is {SMALLEST_BANK_DETAILS}"
)
DETAILS_REQUIRED = "paymentDetails is required when paymentMethodUuid is not provided"
METHOD_INCOMPATIBLE = "payment method type is incompatible with transaction method"
CUSTOMER_INACTIVE = "customer is inactive"


def saved_method_needs_customer(body: object) -> None:
    """Rules 1 and 6: a saved method is charged with both uuids; paymentMethodUuid alone is 400, answered
    before anything else about the body."""
    if isinstance(body, dict) and body.get("paymentMethodUuid") not in (None, "") and not body.get("customerUuid"):
        raise ApiError(PAYMENT_METHOD_NEEDS_CUSTOMER, field="customerUuid", code=ErrorCode.REQUIRED)


def bank_details_required(method: PaymentMethodKind, details: dict | None) -> None:
    """Rule 2: a bank charge carries structurally valid paymentDetails, even when a saved method replaces them
    (the serializer checks their structure)."""
    if details is None and not method.pays_by_card:
        raise ApiError(BANK_DETAILS_REQUIRED, field="paymentDetails", code=ErrorCode.REQUIRED)


def saved_payer(*, method: PaymentMethodKind, customer: Customer, saved: PaymentMethod) -> dict[str, Any]:
    """Rules 3 and 5: a saved bank method charges ACH, RCC or RTP only, never once blocked by a return, and
    its stored holder and account replace whatever paymentDetails held."""
    if method.pays_by_card:
        raise IncompatibleMethod(METHOD_INCOMPATIBLE)
    if saved.blocked_at is not None:
        raise PaymentMethodBlocked(f"payment method is blocked: {saved.blocked_reason or 'blocked'}")
    # A NOC C04 corrects the holder's name.
    return saved_bank_fields(name=saved.corrected_name or customer.holder_name, saved=saved)


def payer_resolve(
    *, company: Company, customer_uuid: UUID | None, payment_method_uuid: UUID | None, also: RowColumn | None = None
) -> tuple[Customer | None, PaymentMethod | None, Any]:
    """Rules 7 and 8: the customer first (404, inactive), then the saved method (404). customerUuid alone only
    links the customer: no saved method is pulled, not even the default. With a saved method, `also`'s value is
    read in the same statement (transactions.selectors.saved_method_for_charge), else it is None."""
    if customer_uuid is None:
        return None, None, None
    if payment_method_uuid is None:
        customer, method, value = customer_get(company=company, customer_uuid=customer_uuid), None, None
    else:
        customer, method, value = saved_method_for_charge(
            company=company, customer_uuid=customer_uuid, payment_method_uuid=payment_method_uuid, also=also
        )
    if customer.status != Customer.Status.ACTIVE:
        raise CustomerInactive(CUSTOMER_INACTIVE)
    if payment_method_uuid is not None and method is None:
        raise NotFound("Payment method not found", field="paymentMethodUuid")
    return customer, method, value


def payer_fields(
    *, method: PaymentMethodKind, details: dict | None, customer: Customer | None, saved: PaymentMethod | None
) -> dict[str, Any]:
    """Who pays, as the transaction stores it: the saved method (rules 3, 5), else the request's details (7)."""
    if saved is not None:
        return saved_payer(method=method, customer=customer, saved=saved)
    if details is None:
        raise ApiError(DETAILS_REQUIRED, field="paymentDetails", code=ErrorCode.REQUIRED)
    if method.pays_by_card:
        return card_fields(details)
    return bank_fields(
        name=details["name"],
        account_type=details["account_type"],
        account_number=details["account_number"],
        routing_number=details["routing_number"],
    )


def card_fields(details: dict[str, Any]) -> dict[str, Any]:
    number = details["card_number"]
    first, last = numbers.card_shown_parts(number)
    return {
        "name": details["name"],
        "card_first_six": first,
        "card_last_four": last,
        "card_masked": numbers.card_mask(number),
        "card_expiration": details["expiration_date"],
    }


def same_day_check(*, kind: PaymentMethodKind, amount: int, same_day: bool) -> None:
    """CONTRACT 12: Same Day ACH is asked for, by an entry that goes in a NACHA file, of at most $1,000,000."""
    if not same_day:
        return
    if not kind.same_day_ach:
        refused = "isSameDay applies to ACH and RCC entries only"
    elif amount > SAME_DAY_MAX_AMOUNT:
        refused = f"Same Day ACH takes entries up to {SAME_DAY_MAX_AMOUNT} cents ($1,000,000); send this one next day"
    else:
        return
    raise ApiError(refused, field="isSameDay", code=ErrorCode.SAME_DAY_NOT_ALLOWED)


def entry_description_resolve(
    *,
    method: PaymentMethodKind,
    sec_code: str,
    type: str,
    purpose: str | None,
    requested: str | None,
    written_by_service: bool = False,
) -> str | None:
    """CONTRACT 11: the Company Entry Description a charge's batch carries: the standard one its purpose, SEC
    code and direction require (PURCHASE, PAYROLL), else the merchant's, else PAYMENT; None for RTP and cards. A
    reserved description (CONTRACT 12) only when the service writes it (`written_by_service`: a retry)."""
    if not method.in_nacha_file:
        if requested:
            raise ApiError("entryDescription applies to ACH and RCC entries only", field="entryDescription")
        return None
    for description, standard in STANDARD_DESCRIPTIONS.items():
        applies = (purpose, sec_code, type) == (standard.purpose, standard.sec_code, standard.type)
        if applies and requested not in (None, description):
            raise ApiError(
                f"entryDescription must be {description} for a {sec_code} {type.lower()} with purpose {purpose}",
                field="entryDescription",
                code=ErrorCode.ENTRY_DESCRIPTION_MISMATCH,
            )
        if applies:
            return description
        if requested is not None and reads_as(requested, description):  # PURCHASES reads as PURCHASE (ACH L1)
            shown = "" if requested == description else f" (read as {description})"
            raise ApiError(
                f"entryDescription {requested}{shown} is only for a {standard.sec_code} {standard.type.lower()} "
                f"with purpose {standard.purpose}",
                field="entryDescription",
                code=ErrorCode.ENTRY_DESCRIPTION_MISMATCH,
            )
    if requested and not written_by_service:
        entry_description_not_reserved(requested)
    return requested or DEFAULT_ENTRY_DESCRIPTION


def entry_description_not_reserved(requested: str) -> None:
    """CONTRACT 12: no ordinary charge carries a reserved description, nor one that reads as it (RETRYPYMT)."""
    reserved = reserved_description(requested)
    if reserved is not None:
        shown = "" if requested == reserved else f" (read as {reserved})"
        raise ApiError(
            f"entryDescription {requested} is reserved{shown}: the service writes it on "
            f"{RESERVED_DESCRIPTIONS[reserved]}",
            field="entryDescription",
            code=ErrorCode.ENTRY_DESCRIPTION_RESERVED,
        )
