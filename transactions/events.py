"""Outbox events for transactions (CONTRACT 9): each status change writes an event in the same database
transaction, with the transaction as GET /transactions/{uuid} shows it. transactions.state, which makes every
status change, is the one caller."""

from __future__ import annotations

from collections.abc import Iterable

from events.services import EventDraft, events_record
from events.types import EventType
from transactions.models import Status, Transaction
from transactions.records import transaction_record

# A transaction that is born in one of these statuses also reports it, after transaction.created.
BORN_AS: dict[str, str] = {
    Status.HELD: EventType.TRANSACTION_HELD,
    Status.DECLINED: EventType.TRANSACTION_DECLINED,
    Status.SETTLED: EventType.TRANSACTION_SETTLED,
}


def _draft(txn: Transaction, type: str) -> EventDraft:
    return EventDraft(company_id=txn.company_id, type=type, object_uuid=txn.uuid, data=transaction_record(txn))


def transaction_webhook(txn: Transaction, type: str) -> None:
    events_record([_draft(txn, type)])


def transaction_created_event(txn: Transaction) -> None:
    """transaction.created, then the status it was born in when that is not Pending (held, declined, settled)."""
    types = [EventType.TRANSACTION_CREATED, *([BORN_AS[txn.status]] if txn.status in BORN_AS else [])]
    events_record([_draft(txn, type) for type in types])


def transactions_webhook(ids: Iterable[int], type: str) -> None:
    """The same event for many transactions (lifecycle commands), read back after their update."""
    ids = list(ids)
    if not ids:
        return
    rows = (
        Transaction.objects.filter(pk__in=ids)
        .defer("account_number")
        # No hold: the record reads it only for HELD rows, which no bulk transition produces. The return row is
        # read for returned ones (import_returns).
        .select_related("customer", "payment_method", "return_entry")
        .order_by("pk")
    )
    events_record([_draft(txn, type) for txn in rows])
