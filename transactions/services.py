"""Writes for charges: create (with saved methods, risk, idempotency, processing dates) and void."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from uuid import UUID, uuid4

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from payments import numbers
from payments.models import PaymentMethod
from transactions import calendar
from transactions.models import (
    BANK_METHODS,
    IdempotencyRecord,
    Method,
    Settlement,
    Status,
    Transaction,
    TransactionHold,
    TransactionType,
)
from transactions.payer import bank_fields
from transactions.records import transaction_record
from transactions.risk import risk_assess
from transactions.rules import (
    CARD_APPROVED_CODE,
    CARD_EXPIRED_CODE,
    DEFAULT_ENTRY_DESCRIPTION,
    DEFAULT_SEC_CODE,
    IDEMPOTENCY_WINDOW_HOURS,
    METHOD_RULES,
    ORIGINATED_METHODS,
    RESERVED_DESCRIPTIONS,
    STANDARD_DESCRIPTIONS,
    MethodRule,
)
from transactions.selectors import customer_for_charge, duplicate_exists, saved_method_for_charge, transaction_get
from transactions.state import Actor, Event, target_of, transaction_create, transaction_lock, transition
from transactions.validation import web_debit_gate
from vault.error_codes import ErrorCode
from vault.errors import (
    ApiError,
    Conflict,
    CustomerInactive,
    IdempotencyKeyReused,
    IncompatibleMethod,
    NotFound,
    PaymentMethodBlocked,
)

CUSTOMER_INACTIVE = "customer is inactive"
METHOD_INCOMPATIBLE = "payment method type is incompatible with transaction method"
PAYMENT_DETAILS_REQUIRED = "paymentDetails is required when paymentMethodUuid is not provided"
IDEMPOTENCY_MISMATCH = "Idempotency-Key was already used with a different request body"
IDEMPOTENCY_ATTEMPTS = 3


@dataclass(frozen=True)
class ChargeResult:
    status_code: int
    record: dict[str, Any]
    replayed: bool = False


def effective_date_resolve(*, requested: date | None, now: datetime, cutoff: time, rule: MethodRule) -> date:
    """The processing day of a charge: omitted -> the next processing window; a weekend or holiday moves to
    the next Fed business day; a day whose window has passed moves to the next one; a past date is 400."""
    today = calendar.eastern_now(now).date()
    if requested is not None and requested < today:
        raise ApiError("effectiveDate must not be in the past", field="effectiveDate", code=ErrorCode.PAST_DATE)
    if rule.real_time:
        if requested not in (None, today):
            raise ApiError("RTP settles immediately: effectiveDate must be today or omitted", field="effectiveDate")
        return today
    earliest = calendar.next_processing_day(now, cutoff)
    if requested is None:
        return earliest
    return max(calendar.next_business_day(requested), earliest)


def _card_fields(details: dict[str, Any]) -> dict[str, Any]:
    number = details["card_number"]
    first, last = numbers.card_shown_parts(number)
    return {
        "name": details["name"],
        "card_first_six": first,
        "card_last_four": last,
        "card_masked": numbers.card_mask(number),
        "card_expiration": details["expiration_date"],
    }


def entry_description_resolve(
    *, method: str, sec_code: str, type: str, purpose: str | None, requested: str | None
) -> str | None:
    """The Company Entry Description a charge's batch carries: the standard one its purpose, SEC code and
    direction require (PURCHASE, PAYROLL), else the merchant's, else PAYMENT; None for RTP and cards."""
    if method not in ORIGINATED_METHODS:
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
        if requested == description:
            raise ApiError(
                f"entryDescription {description} is only for a {standard.sec_code} {standard.type.lower()} "
                f"with purpose {standard.purpose}",
                field="entryDescription",
                code=ErrorCode.ENTRY_DESCRIPTION_MISMATCH,
            )
    if requested in RESERVED_DESCRIPTIONS:
        raise ApiError(
            f"entryDescription {requested} is reserved for account validation",
            field="entryDescription",
            code=ErrorCode.ENTRY_DESCRIPTION_RESERVED,
        )
    return requested or DEFAULT_ENTRY_DESCRIPTION


def _resolve_payer(
    *, company: Company, customer_uuid: UUID | None, payment_method_uuid: UUID | None
) -> tuple[Customer | None, PaymentMethod | None]:
    """SPEC 4.7: the customer first (404, inactive), then the saved method (404, blocked)."""
    if customer_uuid is None:
        return None, None
    if payment_method_uuid is None:  # rule 7: customerUuid alone only links the customer
        customer, method = customer_for_charge(company=company, customer_uuid=customer_uuid), None
    else:
        customer, method = saved_method_for_charge(
            company=company, customer_uuid=customer_uuid, payment_method_uuid=payment_method_uuid
        )
    if customer.status != Customer.Status.ACTIVE:
        raise CustomerInactive(CUSTOMER_INACTIVE)
    if payment_method_uuid is not None and method is None:
        raise NotFound("Payment method not found", field="paymentMethodUuid")
    return customer, method


def real_time_settle(*, txn: Transaction, now: datetime) -> None:
    settlement, _ = Settlement.objects.get_or_create(
        company=txn.company,
        kind=Settlement.Kind.REGULAR,
        settlement_date=calendar.eastern_now(now).date(),
        defaults={"processed_at": now},
    )
    signed = txn.amount if txn.type == TransactionType.DEBIT else -txn.amount
    Settlement.objects.filter(pk=settlement.pk).update(
        transaction_count=F("transaction_count") + 1, net_amount=F("net_amount") + signed
    )
    txn.settlement = settlement
    txn.expected_to_settle_at = now
    txn.rtp_transaction_id = f"RTP{uuid4().hex.upper()}"


def card_expired(expiration: str, now: datetime) -> bool:
    """`MM/YY`: valid through the last day of that month."""
    month, year = expiration.split("/")
    return (2000 + int(year), int(month)) < (now.year, now.month)


def card_authorize(*, txn: Transaction, now: datetime) -> None:
    txn.authorized_at = now
    txn.auth_response_code = CARD_APPROVED_CODE


# The fields `accepted_charge_process` may change besides the status, for a save(update_fields=...) after it.
PROCESSED_FIELDS = (
    "settlement",
    "expected_to_settle_at",
    "rtp_transaction_id",
    "authorized_at",
    "auth_response_code",
    "failure_reason",
)


def accepted_charge_process(*, txn: Transaction, now: datetime) -> Event | None:
    """What a Pending charge that passed risk goes through: at creation, and again when an operator releases
    its hold or restores it. RTP settles at once; a card is authorised (declined when it has expired since),
    then captured by `settle`; ACH and RCC stay Pending for `originate`. Idempotent: a charge already
    settled or authorised is left as it is. Sets the fields that go with it and answers the move the charge
    makes from Pending (settled, declined), if any; the caller has transactions.state write it."""
    rule = METHOD_RULES[txn.method]
    if rule.real_time and txn.settlement_id is None:
        real_time_settle(txn=txn, now=now)
        return Event.SETTLED
    if rule.is_card and txn.authorized_at is None:
        if card_expired(txn.card_expiration, now):
            txn.auth_response_code = CARD_EXPIRED_CODE
            txn.failure_reason = "card has expired"
            return Event.DECLINED
        card_authorize(txn=txn, now=now)
    return None


def accepted_charge_resume(*, txn: Transaction, actor: Actor, at: datetime) -> None:
    """A charge back in Pending (released, restored) goes on as a new one would: its fields saved, then its
    move (settled, declined) if it makes one."""
    then = accepted_charge_process(txn=txn, now=at)
    txn.save(update_fields=PROCESSED_FIELDS)
    if then is not None:
        transition(txn, then, actor=actor, at=at, reason=txn.failure_reason)


def _charge(
    *,
    company: Company,
    method: str,
    type: str,
    amount: int,
    customer_uuid: UUID | None,
    payment_method_uuid: UUID | None,
    payment_details: dict[str, Any] | None,
    standard_entry_class_code: str,
    effective_date: date | None,
    external_unique_id: str,
    description: str,
    idempotency_key: str,
    now: datetime,
    actor: Actor,
    entry_description: str | None = None,
    purpose: str | None = None,
) -> Transaction:
    rule = METHOD_RULES[method]
    sec_code = standard_entry_class_code or rule.default_sec_code
    entry_description = entry_description_resolve(
        method=method,
        sec_code=sec_code or DEFAULT_SEC_CODE.get(method, ""),
        type=type,
        purpose=purpose,
        requested=entry_description,
    )
    customer, saved = _resolve_payer(
        company=company, customer_uuid=customer_uuid, payment_method_uuid=payment_method_uuid
    )
    if saved is not None:
        # Rule 3: the stored holder and account replace whatever paymentDetails held.
        if method not in BANK_METHODS:
            raise IncompatibleMethod(METHOD_INCOMPATIBLE)
        if saved.blocked_at is not None:
            raise PaymentMethodBlocked(f"payment method is blocked: {saved.blocked_reason or 'blocked'}")
        payer = bank_fields(
            name=customer.holder_name,
            account_type=saved.account_type,
            account_number=saved.account_number,
            routing_number=saved.routing_number,
        )
    elif payment_details is None:
        raise ApiError(PAYMENT_DETAILS_REQUIRED, field="paymentDetails", code=ErrorCode.REQUIRED)
    elif rule.is_card:
        payer = _card_fields(payment_details)
    else:
        payer = bank_fields(
            name=payment_details["name"],
            account_type=payment_details["account_type"],
            account_number=payment_details["account_number"],
            routing_number=payment_details["routing_number"],
        )

    day = effective_date_resolve(
        requested=effective_date, now=now, cutoff=calendar.company_cutoff(company.cutoff_time), rule=rule
    )
    txn = Transaction(
        company=company,
        customer=customer,
        payment_method=saved,
        method=method,
        type=type,
        amount=amount,
        standard_entry_class_code=sec_code,
        entry_description=entry_description,
        purpose=purpose,
        effective_date=day,
        is_same_day=rule.same_day_ach and calendar.is_same_day_eligible(now, day),
        created_at=now,
        external_unique_id=external_unique_id,
        idempotency_key=idempotency_key,
        description=description,
        is_duplicate=duplicate_exists(
            company=company,
            amount=amount,
            type=type,
            now=now,
            account_number_hash=payer.get("account_number_hash", ""),
            card_first_six=payer.get("card_first_six", ""),
            card_last_four=payer.get("card_last_four", ""),
        ),
        **payer,
    )
    outcome = risk_assess(company=company, amount=amount, now=now)
    if outcome is None and saved is not None and method == Method.ACH:
        outcome = web_debit_gate(
            company=company, customer=customer, method=saved, sec_code=sec_code, txn_type=type, actor=actor, now=now
        )
    if outcome is not None:
        born = outcome.status
        txn.failure_reason = outcome.reason
    else:
        then = accepted_charge_process(txn=txn, now=now)
        born = Status.PENDING if then is None else target_of(Status.PENDING, then)
    hold = None
    if born == Status.HELD:
        hold = TransactionHold(company=company, hold_code=outcome.code, hold_reason=outcome.reason, held_at=now)
    transaction_create(txn, status=born, actor=actor, hold=hold)
    return txn


def transaction_charge(
    *,
    company: Company,
    method: str,
    type: str,
    amount: int,
    customer_uuid: UUID | None = None,
    payment_method_uuid: UUID | None = None,
    payment_details: dict[str, Any] | None = None,
    standard_entry_class_code: str = "",
    effective_date: date | None = None,
    external_unique_id: str = "",
    description: str = "",
    idempotency_key: str = "",
    request_hash: str = "",
    now: datetime | None = None,
    actor: Actor,
    entry_description: str | None = None,
    purpose: str | None = None,
) -> ChargeResult:
    """PUT /transactions. With an Idempotency-Key the key's record is inserted first, inside the same
    transaction: a concurrent retry blocks on the (company, key) unique index until this one commits,
    then replays the stored response."""
    now = now or timezone.now()
    charge = {
        "company": company,
        "method": method,
        "type": type,
        "amount": amount,
        "customer_uuid": customer_uuid,
        "payment_method_uuid": payment_method_uuid,
        "payment_details": payment_details,
        "standard_entry_class_code": standard_entry_class_code,
        "effective_date": effective_date,
        "external_unique_id": external_unique_id,
        "description": description,
        "idempotency_key": idempotency_key,
        "now": now,
        "actor": actor,
        "entry_description": entry_description,
        "purpose": purpose,
    }
    if not idempotency_key:
        with transaction.atomic():
            return ChargeResult(201, transaction_record(_charge(**charge)))

    for _ in range(IDEMPOTENCY_ATTEMPTS):
        with transaction.atomic():
            try:
                with transaction.atomic():
                    entry = IdempotencyRecord.objects.create(
                        company=company, key=idempotency_key, request_hash=request_hash, created_at=now
                    )
            except IntegrityError:
                replay = _idempotent_replay(company=company, key=idempotency_key, request_hash=request_hash, now=now)
                if replay is None:
                    continue  # the first holder rolled back or its record expired: take the key
                return replay
            txn = _charge(**charge)
            entry.transaction = txn
            entry.response_status = 201
            record = transaction_record(txn)
            # Kept as JSON text: jsonb would reorder the keys, and a replay must be the same bytes.
            entry.response_body = json.dumps(record)
            entry.save(update_fields=["transaction", "response_status", "response_body"])
            return ChargeResult(entry.response_status, record)
    raise Conflict("Idempotency-Key is in use by a concurrent request; retry", field="Idempotency-Key")


def _idempotent_replay(*, company: Company, key: str, request_hash: str, now: datetime) -> ChargeResult | None:
    existing = IdempotencyRecord.objects.filter(company=company, key=key).first()
    if existing is None:
        return None
    if existing.created_at < now - timedelta(hours=IDEMPOTENCY_WINDOW_HOURS):
        IdempotencyRecord.objects.filter(pk=existing.pk, created_at=existing.created_at).delete()
        return None
    if existing.request_hash != request_hash:
        raise IdempotencyKeyReused(IDEMPOTENCY_MISMATCH)
    return ChargeResult(existing.response_status, json.loads(existing.response_body), replayed=True)


def transaction_void(
    *, company: Company, transaction_uuid: UUID, actor: Actor, now: datetime | None = None
) -> Transaction:
    """Pending -> Voided; any other status is 409. The row is locked so a concurrent batch or void waits."""
    now = now or timezone.now()
    with transaction.atomic():
        txn = transaction_lock(Transaction.objects.filter(company=company, uuid=transaction_uuid)).first()
        if txn is None:
            raise NotFound("Transaction not found", field="transactionUuid")
        transition(txn, Event.VOIDED, actor=actor, at=now, voided_at=now)
    return transaction_get(company=company, transaction_uuid=transaction_uuid)
