"""Outbox events for transactions (CONTRACT 9): each status change writes an event in the same database
transaction, with the transaction as GET /transactions/{uuid} shows it. Every call site is one line, so the
transition function of the state machine can absorb them."""

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


def transaction_event(txn: Transaction, type: str) -> None:
    events_record([_draft(txn, type)])


def transaction_created_event(txn: Transaction) -> None:
    """transaction.created, then the status it was born in when that is not Pending (held, declined, settled)."""
    types = [EventType.TRANSACTION_CREATED, *([BORN_AS[txn.status]] if txn.status in BORN_AS else [])]
    events_record([_draft(txn, type) for type in types])


def transaction_resumed_event(txn: Transaction, type: str) -> None:
    """`type` (released, restored), then where the charge went on to when that is not Pending: an RTP charge
    settles at once, a card whose expiry passed is declined."""
    types = [type, *([BORN_AS[txn.status]] if txn.status in BORN_AS else [])]
    events_record([_draft(txn, each) for each in types])


def transactions_event(ids: Iterable[int], type: str) -> None:
    """The same event for many transactions (lifecycle commands), read back after their update."""
    ids = list(ids)
    if not ids:
        return
    rows = (
        Transaction.objects.filter(pk__in=ids)
        .defer("account_number")
        .select_related("customer", "payment_method", "hold")
        .order_by("pk")
    )
    events_record([_draft(txn, type) for txn in rows])


def transactions_returned_event(ids: Iterable[int], late_ids: Iterable[int]) -> None:
    """transaction.returned, or transaction.late_returned for those that had already settled."""
    late = set(late_ids)
    transactions_event([pk for pk in ids if pk not in late], EventType.TRANSACTION_RETURNED)
    transactions_event(late, EventType.TRANSACTION_LATE_RETURNED)


def transactions_voided_reversals_event(uuids: Iterable, *, at) -> None:
    """transaction.voided for the pending reversal credits a return of their original has just voided."""
    voided = Transaction.objects.filter(uuid__in=list(uuids), status=Status.VOIDED, voided_at=at)
    transactions_event(voided.values_list("pk", flat=True), EventType.TRANSACTION_VOIDED)
