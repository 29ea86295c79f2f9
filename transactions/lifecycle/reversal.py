"""Reversal of a Settled debit: an offsetting Credit to the same account, linked both ways."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db import transaction

from accounts.models import Company
from events.types import EventType
from transactions import calendar
from transactions.events import transaction_created_event, transaction_event
from transactions.models import Status, Transaction, TransactionType
from vault.errors import Conflict, NotFound

COPIED_FIELDS = (
    "customer_id",
    "payment_method_id",
    "method",
    "amount",
    "standard_entry_class_code",
    "name",
    "account_type",
    "account_number",
    "account_number_hash",
    "account_last_four",
    "routing_number",
)


@transaction.atomic
def transaction_reverse(*, company: Company, transaction_uuid: UUID, at: datetime) -> Transaction:
    original = Transaction.objects.select_for_update().filter(company=company, uuid=transaction_uuid).first()
    if original is None:
        raise NotFound("Transaction not found")
    if original.type != TransactionType.DEBIT or original.status != Status.SETTLED:
        raise Conflict(
            f"only a Settled Debit can be reversed; this is a {original.status} {original.type}",
            code="not_reversible",
        )
    credit = Transaction(
        company=company,
        type=TransactionType.CREDIT,
        status=Status.PENDING,
        effective_date=calendar.next_processing_day(at, company.cutoff_time),
        created_at=at,
        description=f"Reversal of {original.uuid}",
        reversal_uuid=original.uuid,
        **{name: getattr(original, name) for name in COPIED_FIELDS},
    )
    credit.save()
    original.status = Status.REVERSED
    original.reversed_at = at
    original.reversal_uuid = credit.uuid
    original.save(update_fields=["status", "reversed_at", "reversal_uuid"])
    transaction_event(original, EventType.TRANSACTION_REVERSED)
    transaction_created_event(credit)
    credit.reversal_of = original
    return credit
