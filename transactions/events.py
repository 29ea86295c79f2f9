"""Outbox events for transactions (CONTRACT 9): each status change writes an event in the same database
transaction, with the transaction as GET /transactions/{uuid} shows it. transactions.state, which makes every
status change, is the one caller."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from django.db import connection

from events.outbox import EventDraft, events_record, events_record_many, events_record_selected, row_and_events_record
from events.types import EventType
from transactions.models import Status, Transaction
from transactions.records import (
    RECORD_COLUMNS,
    RECORD_SQL,
    RECORD_SQL_JOINS,
    REPRESENTMENT,
    REPRESENTMENT_SUBQUERY,
    SCHEDULED_DEBIT,
    transaction_record,
)
from vault.db import RowInsert, array_literal, ids_in, loaded_instance

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


def _born_types(txn: Transaction) -> list[str]:
    """transaction.created, then the status it was born in when that is not Pending (held, declined, settled)."""
    return [EventType.TRANSACTION_CREATED, *([BORN_AS[txn.status]] if txn.status in BORN_AS else [])]


def transaction_created_event(txn: Transaction) -> None:
    events_record([_draft(txn, type) for type in _born_types(txn)])


# What only the INSERT of a transaction knows of its record: JSON name -> column.
_INSERTED = {"numericId": "id", "isDuplicate": "is_duplicate"}


def transaction_insert_announced(txn: Transaction, insert: RowInsert) -> None:
    """PostgreSQL: the INSERT of a new transaction (its `created` trail is the row's trigger) and the events of its
    birth (`transaction_created_event`'s), one statement: one round trip where there were two."""
    record = transaction_record(txn) | dict.fromkeys(_INSERTED)  # filled in by the statement
    returning = [field.column for field in insert.returning]
    row, _events = row_and_events_record(
        [
            EventDraft(company_id=txn.company_id, type=type, object_uuid=txn.uuid, data=record)
            for type in _born_types(txn)
        ],
        row=insert.statement(txn),
        returning=returning,
        merge={name: column for name, column in _INSERTED.items() if column in returning},
    )
    insert.returned(txn, row)


# Lifecycle commands announce their rows this many at a time: memory stays flat however many they move.
WEBHOOK_CHUNK = 5000
# What transaction_record reads of the rows it links to: (relation, its fields, their names in a values() row).
_LINKED = (
    ("customer", ("uuid",)),
    ("payment_method", ("uuid",)),
    ("refund_of", ("uuid",)),
    ("retry_of", ("uuid",)),
    ("return_entry", ("return_code", "return_reason", "returned_at", "is_untimely")),
    ("retry_attempt", ("state", "scheduled_for", "number", "reason")),
    ("mandate", ("uuid",)),
)
# Reverse one-to-one links a row may lack: known absent, so that reading one makes no query.
_MAYBE_ABSENT = frozenset({"retry_attempt"})
# A schedule's debit: its link's schedule uuid (transactions.records.schedule_uuid), two relations away.
_SCHEDULED = Transaction._meta.get_field(SCHEDULED_DEBIT).related_model
_SCHEDULE_UUID = f"{SCHEDULED_DEBIT}__schedule__uuid"


def _record_rows(ids: list[int]) -> Iterator[Transaction]:
    """The rows of `ids` as transaction_record reads them: its columns and linked rows, nothing else (a column it
    reads that is not loaded would cost a query per row)."""
    linked = [f"{name}__{field}" for name, fields in _LINKED for field in fields]
    rows = (
        Transaction.objects.filter(ids_in(ids))
        .annotate(**{REPRESENTMENT: REPRESENTMENT_SUBQUERY})
        .order_by("pk")
        .values_list(*RECORD_COLUMNS, *linked, _SCHEDULE_UUID, REPRESENTMENT)
    )
    own = len(RECORD_COLUMNS)
    for *values, schedule_uuid, representment in rows:
        txn = loaded_instance(Transaction, dict(zip(RECORD_COLUMNS, values[:own], strict=True)))
        setattr(txn, REPRESENTMENT, representment)
        position = own
        for name, fields in _LINKED:
            found = values[position : position + len(fields)]
            position += len(fields)
            if found[0] is not None:
                related = Transaction._meta.get_field(name).related_model
                txn._state.fields_cache[name] = loaded_instance(related, dict(zip(fields, found, strict=True)))
            elif name in _MAYBE_ABSENT:
                txn._state.fields_cache[name] = None
        scheduled = None
        if schedule_uuid is not None:
            scheduled = loaded_instance(_SCHEDULED, {})
            schedule_model = _SCHEDULED._meta.get_field("schedule").related_model
            scheduled._state.fields_cache["schedule"] = loaded_instance(schedule_model, {"uuid": schedule_uuid})
        txn._state.fields_cache[SCHEDULED_DEBIT] = scheduled
        yield txn


# The rows of an id array as events_record_selected reads them, and the record PostgreSQL renders for each.
_SELECTED_ROWS = (
    f"SELECT company_id, uuid AS object_uuid, id AS ord FROM {Transaction._meta.db_table} "  # noqa: S608 - no input
    "WHERE id = ANY(%s::bigint[])"
)
_SELECTED_RECORD = (
    f"(SELECT {RECORD_SQL} FROM {Transaction._meta.db_table} t {RECORD_SQL_JOINS} "  # noqa: S608 - no input
    "WHERE t.id = d.ord AND t.company_id = d.company_id)"
)


def transactions_event(ids: Iterable[int], type: str) -> None:
    """The same event for many transactions (lifecycle commands), read back after their update, a chunk at a time,
    in id order. On PostgreSQL the server renders each record (RECORD_SQL) and writes the events in one statement
    a chunk; elsewhere the rows come to Python for transaction_record."""
    ids = list(ids)
    for start in range(0, len(ids), WEBHOOK_CHUNK):
        chunk = ids[start : start + WEBHOOK_CHUNK]
        if connection.vendor == "postgresql":
            events_record_selected(_SELECTED_ROWS, [array_literal(chunk)], type=type, data=_SELECTED_RECORD)
        else:
            events_record_many([_draft(txn, type) for txn in _record_rows(chunk)])
