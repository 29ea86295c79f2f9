"""The transaction record of CONTRACT 6, as plain JSON values.

It lives outside the views because the charge service stores the exact body it answered with, so an
idempotent retry replays it byte for byte."""

from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Q, Subquery
from django.db.models.functions import Coalesce

from transactions.methods import METHODS, method_kind
from transactions.models import (
    Finality,
    RetryAttempt,
    Status,
    Transaction,
    TransactionEvent,
    TransactionHold,
    TransactionReturn,
    TransactionType,
)
from vault.records import DATETIME_SQL, MASK_PREFIX, iso_utc, mask, text_or_none


def payment_details(txn: Transaction) -> dict[str, Any]:
    if method_kind(txn.method).pays_by_card:
        return {
            "name": txn.name,
            "cardNumber": txn.card_masked,
            "panFirstSix": txn.card_first_six,
            "panLastFour": txn.card_last_four,
            "expirationDate": txn.card_expiration,
        }
    return {
        "name": txn.name,
        "accountType": txn.account_type,
        "accountNumber": mask(txn.account_last_four),
        "routingNumber": txn.routing_number,
    }


# Every column transaction_record reads of a transaction (and payment_details, return_details, is_micro_entry),
# besides the linked rows' uuids and the return: the lifecycle commands load only these for their events
# (transactions.events; tests/transactions/test_record_columns.py fails when the record reads another one).
RECORD_COLUMNS = (
    "id",
    "company_id",
    "uuid",
    "status",
    "amount",
    "account_validation_id",
    "method",
    "type",
    "effective_date",
    "customer_id",
    "payment_method_id",
    "standard_entry_class_code",
    "name",
    "account_type",
    "account_last_four",
    "routing_number",
    "card_masked",
    "card_first_six",
    "card_last_four",
    "card_expiration",
    "created_at",
    "is_same_day",
    "is_duplicate",
    "external_unique_id",
    "idempotency_key",
    "sequence_uuid",
    "rtp_transaction_id",
    "description",
    "entry_description",
    "purpose",
    "failure_reason",
    "return_code",
    "voided_at",
    "reversal_uuid",
    "reversed_at",
    "refund_of_id",
    "retry_of_id",
    "authorized_at",
    "auth_response_code",
    "retry_policy",
    "returns_due_by",
    "unauthorized_returns_due_by",
    "funds_available_at",
    "finality",
    "final_at",
    "mandate_id",
)

# A schedule's debit is linked by the schedule's own row (schedules.ScheduledDebit, one per debit; schedules sit above
# transactions): reached through the reverse relation, never imported.
SCHEDULED_DEBIT = "scheduled_debit"


def transaction_record(txn: Transaction, *, hold_code: str = "", hold_reason: str = "") -> dict[str, Any]:
    """`hold_code`/`hold_reason` come from the TransactionHold row (pass them when it is not loaded)."""
    record: dict[str, Any] = {
        "uuid": str(txn.uuid),
        "numericId": txn.pk,
        "status": txn.status,
        "amount": None if txn.is_micro_entry else txn.amount,  # the payer's secret
        "method": txn.method,
        "type": txn.type,
        "effectiveDate": txn.effective_date.isoformat(),
        "customerUuid": str(txn.customer.uuid) if txn.customer_id else None,
        "paymentMethodUuid": str(txn.payment_method.uuid) if txn.payment_method_id else None,
        "standardEntryClassCode": text_or_none(txn.standard_entry_class_code),
        "paymentDetails": payment_details(txn),
        "createdAt": iso_utc(txn.created_at),
        "isSameDay": txn.is_same_day,
        "isDuplicate": txn.is_duplicate,
        "externalUniqueId": text_or_none(txn.external_unique_id),
        "idempotencyKey": text_or_none(txn.idempotency_key),
        "sequenceUuid": str(txn.sequence_uuid),
        "rtpTransactionId": text_or_none(txn.rtp_transaction_id),
        "description": text_or_none(txn.description),
        "entryDescription": txn.entry_description,
        "purpose": txn.purpose,
        # HELD is no failure: the reason is holdReason's (F17); the column keeps it for the `created` event.
        "failureReason": None if txn.status == Status.HELD else text_or_none(txn.failure_reason),
        **return_details(txn),
        "voidedAt": iso_utc(txn.voided_at),
        "reversalUuid": str(txn.reversal_uuid) if txn.reversal_uuid else None,
        "reversedAt": iso_utc(txn.reversed_at),
        "refundOfUuid": str(txn.refund_of.uuid) if txn.refund_of_id else None,
        "retryOf": str(txn.retry_of.uuid) if txn.retry_of_id else None,
        "mandateUuid": str(txn.mandate.uuid) if txn.mandate_id else None,
        "scheduleUuid": schedule_uuid(txn),
        "retryPolicy": txn.retry_policy,
        "retry": retry_details(txn),
        **finality_details(txn),
    }
    if method_kind(txn.method).pays_by_card:
        record["authorizedAt"] = iso_utc(txn.authorized_at)
        record["authResponseCode"] = text_or_none(txn.auth_response_code)
    if txn.status == Status.HELD:
        if not hold_code and hasattr(txn, "hold"):
            hold_code, hold_reason = txn.hold.hold_code, txn.hold.hold_reason
        record["holdCode"] = text_or_none(hold_code)
        record["holdReason"] = text_or_none(hold_reason)
    return record


def held_line(record: dict[str, Any]) -> dict[str, Any] | None:
    """What a scheduled run (run_retries, run_schedules) prints of a debit it made HELD: which, and why (newcomer
    review 2026-12-07 O4: `created: 1` said nothing of the hold); None for a debit not held."""
    if record["status"] != Status.HELD:
        return None
    return {"transaction": record["uuid"], "holdCode": record.get("holdCode"), "holdReason": record.get("holdReason")}


def schedule_uuid(txn: Transaction) -> str | None:
    """The schedule that made the debit (CONTRACT 14). A schedule's debit always goes under its mandate, so a
    transaction under none reads nothing; a charge being made has no link yet (run_schedules adds it next)."""
    if txn.mandate_id is None or txn._state.adding:
        return None
    scheduled = getattr(txn, SCHEDULED_DEBIT, None)
    return str(scheduled.schedule.uuid) if scheduled is not None else None


def return_details(txn: Transaction) -> dict[str, Any]:
    """Why a returned transaction came back: the return's code, reason, time and whether it was untimely; null while
    it was not returned.
    `return_code` is the trigger-kept copy, so only a returned transaction reads its return row."""
    entry = getattr(txn, "return_entry", None) if txn.return_code else None
    return {
        "returnCode": entry.return_code if entry else None,
        "returnReason": entry.return_reason if entry else None,
        "returnedAt": iso_utc(entry.returned_at) if entry else None,
        # Received after its code's time frame (CONTRACT 12 "Return deadlines"): applied, and flagged.
        "untimely": entry.is_untimely if entry else None,
    }


def retry_details(txn: Transaction) -> dict[str, Any] | None:
    """A returned debit's next presentment (CONTRACT 15): the attempt its return scheduled, or that none will be
    made; null for anything not returned. Only a returned debit reads its attempt row."""
    if txn.type != TransactionType.DEBIT or not txn.return_code:
        return None
    attempt = getattr(txn, "retry_attempt", None)
    made = representment_uuid(txn)
    if attempt is None:
        return {
            "willAttemptRetry": False,
            "scheduledFor": None,
            "attempt": None,
            "status": None,
            "reason": None,
            "transactionUuid": made,
        }
    return {
        "willAttemptRetry": attempt.state == RetryAttempt.State.SCHEDULED,
        "scheduledFor": attempt.scheduled_for.isoformat(),
        "attempt": attempt.number,
        "status": attempt.state,
        "reason": text_or_none(attempt.reason),
        "transactionUuid": made,
    }


# The debit that re-presented a returned one (CONTRACT 15), by hand or by `run_retries`. Every re-presentment points
# at the first presentment (`retry_of`), and only the latest presentment's return may be re-presented
# (transactions.charges.retry, under the first presentment's lock), so a presentment's own re-presentment is the first
# of its first presentment's re-presentments made after it. Loaded with the row (`REPRESENTMENT`, an annotation of
# that name) or read on its own.
REPRESENTMENT = "representment_uuid"


def representments_after(*, company_id, first_id, after_id) -> Q:
    return Q(company_id=company_id, retry_of_id=first_id, pk__gt=after_id)


REPRESENTMENT_SUBQUERY = Subquery(
    Transaction.objects.filter(
        representments_after(
            company_id=OuterRef("company_id"),
            first_id=Coalesce(OuterRef("retry_of_id"), OuterRef("pk")),
            after_id=OuterRef("pk"),
        )
    )
    .order_by("pk")
    .values("uuid")[:1]
)


def representment_uuid(txn: Transaction) -> str | None:
    if hasattr(txn, REPRESENTMENT):
        found = getattr(txn, REPRESENTMENT)
    else:
        later = representments_after(company_id=txn.company_id, first_id=txn.retry_of_id or txn.pk, after_id=txn.pk)
        found = Transaction.objects.filter(later).order_by("pk").values_list("uuid", flat=True).first()
    return str(found) if found else None


def _settles_at_birth(txn: Transaction) -> bool:
    return method_kind(txn.method).settles_outside_file and not method_kind(txn.method).pays_by_card


def finality_details(txn: Transaction) -> dict[str, Any]:
    """When the money is safe (CONTRACT 15): an ACH/RCC debit is `pending` until `mark_final` stamps it; an RTP
    payment is final once settled; anything else has no finality."""
    if txn.finality:
        finality = txn.finality
    elif txn.status == Status.SETTLED and _settles_at_birth(txn):
        finality = Finality.FINAL
    elif txn.type == TransactionType.DEBIT and method_kind(txn.method).returnable:
        finality = Finality.PENDING
    else:
        finality = None
    return {
        "finality": finality,
        "returnWindows": {
            "administrativeUntil": txn.returns_due_by.isoformat(),
            "unauthorizedUntil": txn.unauthorized_returns_due_by.isoformat(),
        }
        if txn.returns_due_by
        else None,
        "fundsAvailableAt": iso_utc(txn.funds_available_at),
        "finalAt": iso_utc(txn.final_at),
        # A return that came after the debit was final (finality is an attribute: the return still applies).
        "afterFinal": bool(txn.return_code) and txn.final_at is not None,
    }


def transaction_event_record(event: TransactionEvent) -> dict[str, Any]:
    """One entry of GET /transactions/{uuid}/events: fromStatus is null for the transaction's creation."""
    return {
        "event": event.event,
        "fromStatus": text_or_none(event.from_status),
        "toStatus": event.to_status,
        "caller": event.caller,
        "actor": event.actor,
        "reason": text_or_none(event.reason),
        "at": iso_utc(event.at),
    }


def _sql_text(value: str) -> str:
    """A constant of this code as an SQL literal (never a value from a request)."""
    return "'" + value.replace("'", "''") + "'"


def _iso_sql(column: str) -> str:
    return DATETIME_SQL % {"expressions": column}


def _object_sql(pairs: list[tuple[str, str]]) -> str:
    """jsonb_build_object of (JSON name, SQL expression) pairs (at most 50: the function takes 100 arguments)."""
    return "jsonb_build_object(" + ", ".join(f"{_sql_text(name)}, {expression}" for name, expression in pairs) + ")"


_IS_CARD = "t.method IN (" + ", ".join(_sql_text(code) for code, kind in METHODS.items() if kind.pays_by_card) + ")"
_IS_HELD = f"t.status = {_sql_text(Status.HELD)}"
_CARD_DETAILS = [
    ("name", "t.name"),
    ("cardNumber", "t.card_masked"),
    ("panFirstSix", "t.card_first_six"),
    ("panLastFour", "t.card_last_four"),
    ("expirationDate", "t.card_expiration"),
]
_BANK_DETAILS = [
    ("name", "t.name"),
    ("accountType", "t.account_type"),
    ("accountNumber", f"{_sql_text(MASK_PREFIX)} || t.account_last_four"),
    ("routingNumber", "t.routing_number"),
]
_RECORD_PAIRS = [
    ("uuid", "t.uuid::text"),
    ("numericId", "t.id"),
    ("status", "t.status"),
    ("amount", "CASE WHEN t.amount > 0 AND t.account_validation_id IS NOT NULL THEN NULL ELSE t.amount END"),
    ("method", "t.method"),
    ("type", "t.type"),
    ("effectiveDate", "to_char(t.effective_date, 'YYYY-MM-DD')"),
    ("customerUuid", "customer.uuid::text"),
    ("paymentMethodUuid", "method.uuid::text"),
    ("standardEntryClassCode", "NULLIF(t.standard_entry_class_code, '')"),
    ("paymentDetails", f"CASE WHEN {_IS_CARD} THEN {_object_sql(_CARD_DETAILS)} ELSE {_object_sql(_BANK_DETAILS)} END"),
    ("createdAt", _iso_sql("t.created_at")),
    ("isSameDay", "t.is_same_day"),
    ("isDuplicate", "t.is_duplicate"),
    ("externalUniqueId", "NULLIF(t.external_unique_id, '')"),
    ("idempotencyKey", "NULLIF(t.idempotency_key, '')"),
    ("sequenceUuid", "t.sequence_uuid::text"),
    ("rtpTransactionId", "NULLIF(t.rtp_transaction_id, '')"),
    ("description", "NULLIF(t.description, '')"),
    ("entryDescription", "t.entry_description"),
    ("purpose", "t.purpose"),
    ("failureReason", f"CASE WHEN {_IS_HELD} THEN NULL ELSE NULLIF(t.failure_reason, '') END"),
    ("returnCode", "returned.return_code"),
    ("returnReason", "returned.return_reason"),
    ("returnedAt", _iso_sql("returned.returned_at")),
    ("untimely", "returned.is_untimely"),
    ("voidedAt", _iso_sql("t.voided_at")),
    ("reversalUuid", "t.reversal_uuid::text"),
    ("reversedAt", _iso_sql("t.reversed_at")),
    ("refundOfUuid", "refunded.uuid::text"),
    ("retryOf", "first_presentment.uuid::text"),
    ("mandateUuid", "mandate.uuid::text"),
    ("scheduleUuid", "schedule.uuid::text"),
    ("retryPolicy", "t.retry_policy"),
]
_CARD_PAIRS = [("authorizedAt", _iso_sql("t.authorized_at")), ("authResponseCode", "NULLIF(t.auth_response_code, '')")]
_IS_RETURNED_DEBIT = f"t.type = {_sql_text(TransactionType.DEBIT)} AND COALESCE(t.return_code, '') <> ''"
_RETRY_PAIRS = [
    ("willAttemptRetry", f"COALESCE(attempt.state = {_sql_text(RetryAttempt.State.SCHEDULED)}, false)"),
    ("scheduledFor", "to_char(attempt.scheduled_for, 'YYYY-MM-DD')"),
    ("attempt", "attempt.number"),
    ("status", "attempt.state"),
    ("reason", "NULLIF(attempt.reason, '')"),
    (
        "transactionUuid",
        f"(SELECT r.uuid::text FROM {Transaction._meta.db_table} r WHERE r.company_id = t.company_id "  # noqa: S608
        "AND r.retry_of_id = COALESCE(t.retry_of_id, t.id) AND r.id > t.id ORDER BY r.id LIMIT 1)",
    ),
]
_SETTLES_AT_BIRTH = (
    "t.method IN ("
    + ", ".join(
        _sql_text(code) for code, kind in METHODS.items() if kind.settles_outside_file and not kind.pays_by_card
    )
    + ")"
)
_RETURNABLE = "t.method IN (" + ", ".join(_sql_text(code) for code, kind in METHODS.items() if kind.returnable) + ")"
_FINALITY_PAIRS = [
    ("retry", f"CASE WHEN {_IS_RETURNED_DEBIT} THEN {_object_sql(_RETRY_PAIRS)} END"),
    (
        "finality",
        f"CASE WHEN COALESCE(t.finality, '') <> '' THEN t.finality "
        f"WHEN t.status = {_sql_text(Status.SETTLED)} AND {_SETTLES_AT_BIRTH} THEN {_sql_text(Finality.FINAL)} "
        f"WHEN t.type = {_sql_text(TransactionType.DEBIT)} AND {_RETURNABLE} THEN {_sql_text(Finality.PENDING)} END",
    ),
    (
        "returnWindows",
        "CASE WHEN t.returns_due_by IS NOT NULL THEN "
        + _object_sql(
            [
                ("administrativeUntil", "to_char(t.returns_due_by, 'YYYY-MM-DD')"),
                ("unauthorizedUntil", "to_char(t.unauthorized_returns_due_by, 'YYYY-MM-DD')"),
            ]
        )
        + " END",
    ),
    ("fundsAvailableAt", _iso_sql("t.funds_available_at")),
    ("finalAt", _iso_sql("t.final_at")),
    ("afterFinal", "(COALESCE(t.return_code, '') <> '' AND t.final_at IS NOT NULL)"),
]
_HOLD_PAIRS = [("holdCode", "NULLIF(hold.hold_code, '')"), ("holdReason", "NULLIF(hold.hold_reason, '')")]

# `transaction_record` written by PostgreSQL, for the rows of a lifecycle command's moves (transactions.events):
# the same JSON, key for key, without a round trip of each row to Python and back. A change to one form is a
# change to the other: tests/transactions/test_record_sql.py compares them on every kind of transaction, and on any
# text, amount and moment (hypothesis).
# `t` is the transaction; its linked rows are joined in the tenant's own rows only (`RECORD_SQL_JOINS`).
RECORD_SQL = (
    _object_sql(_RECORD_PAIRS)
    + f" || {_object_sql(_FINALITY_PAIRS)}"
    + f" || CASE WHEN {_IS_CARD} THEN {_object_sql(_CARD_PAIRS)} ELSE '{{}}'::jsonb END"
    + f" || CASE WHEN {_IS_HELD} THEN {_object_sql(_HOLD_PAIRS)} ELSE '{{}}'::jsonb END"
)


_SCHEDULED_DEBIT_MODEL = Transaction._meta.get_field(SCHEDULED_DEBIT).related_model
_SCHEDULE_MODEL = _SCHEDULED_DEBIT_MODEL._meta.get_field("schedule").related_model


def _joined(alias: str, model, on: str) -> str:
    return f"LEFT JOIN {model._meta.db_table} {alias} ON {alias}.company_id = t.company_id AND {on}"


RECORD_SQL_JOINS = " ".join(
    (
        _joined("customer", Transaction._meta.get_field("customer").related_model, "customer.id = t.customer_id"),
        _joined(
            "method", Transaction._meta.get_field("payment_method").related_model, "method.id = t.payment_method_id"
        ),
        _joined("refunded", Transaction, "refunded.id = t.refund_of_id"),
        _joined("first_presentment", Transaction, "first_presentment.id = t.retry_of_id"),
        # Only a returned transaction reads its return row (return_details).
        _joined("returned", TransactionReturn, "returned.transaction_id = t.id AND COALESCE(t.return_code, '') <> ''"),
        _joined("hold", TransactionHold, f"hold.transaction_id = t.id AND {_IS_HELD}"),
        # Only a returned debit reads its retry attempt (retry_details).
        _joined("attempt", RetryAttempt, f"attempt.returned_id = t.id AND {_IS_RETURNED_DEBIT}"),
        _joined("mandate", Transaction._meta.get_field("mandate").related_model, "mandate.id = t.mandate_id"),
        # Only a debit under a mandate reads its schedule's link (schedule_uuid).
        _joined("scheduled", _SCHEDULED_DEBIT_MODEL, "scheduled.transaction_id = t.id AND t.mandate_id IS NOT NULL"),
        _joined("schedule", _SCHEDULE_MODEL, "schedule.id = scheduled.schedule_id"),
    )
)
