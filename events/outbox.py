"""The outbox: `event_record` / `events_record` write events in the caller's atomic block, with the object already
rendered as its GET route shows it, so the event commits (or rolls back) with the change. A worker is asked to
deliver once the transaction commits, and fans the events out to the subscribed endpoints (`events_fan_out`);
run_worker also sweeps for anything due, so an event whose wake-up was lost is still sent."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID, uuid4

import orjson
from django.db import connection, transaction
from django.utils import timezone

from events.models import Delivery, Event, ObjectSequence, WebhookEndpoint
from events.types import subscribed
from events.wakeups import deliveries_due_wake
from vault.db import array_literal, prepared_cursor

SEQUENCE_CHUNK = 500
COPY_THRESHOLD = 200
FANOUT_CHUNK = 500


@dataclass(frozen=True)
class EventDraft:
    company_id: int
    type: str
    object_uuid: UUID
    data: dict[str, Any]


def _sequences(drafts: Sequence[EventDraft]) -> list[int]:
    """Reserve the next sequence numbers per (company, object), one upsert per chunk of objects. The upsert
    locks each counter row until the caller's transaction ends, so two writers on one object take turns and
    the database's unique (company, object, sequence) never sees a collision."""
    wanted: dict[tuple[int, UUID], int] = {}
    for draft in drafts:
        key = (draft.company_id, draft.object_uuid)
        wanted[key] = wanted.get(key, 0) + 1
    field = ObjectSequence._meta.get_field("object_uuid")
    table = connection.ops.quote_name(ObjectSequence._meta.db_table)
    last: dict[tuple[int, UUID], int] = {}
    keys = sorted(wanted, key=lambda key: (key[0], str(key[1])))  # one lock order for every writer
    upsert = (
        f"ON CONFLICT (company_id, object_uuid) DO UPDATE "
        f"SET last_sequence = {table}.last_sequence + excluded.last_sequence "
        f"RETURNING company_id, object_uuid, last_sequence"
    )
    postgres = connection.vendor == "postgresql"
    for start in range(0, len(keys), SEQUENCE_CHUNK):
        chunk = keys[start : start + SEQUENCE_CHUNK]
        if postgres:
            # Three array parameters instead of three per row: client-side binding parses every placeholder.
            sql = (
                f"INSERT INTO {table} (company_id, object_uuid, last_sequence) "  # noqa: S608 - model names
                f"SELECT * FROM unnest(%s::bigint[], %s::uuid[], %s::bigint[]) ORDER BY 1, 2 {upsert}"
            )
            params: list[Any] = [
                array_literal(key[0] for key in chunk),
                array_literal(key[1] for key in chunk),
                array_literal(wanted[key] for key in chunk),
            ]
        else:
            values = ", ".join(["(%s, %s, %s)"] * len(chunk))
            sql = f"INSERT INTO {table} (company_id, object_uuid, last_sequence) VALUES {values} {upsert}"  # noqa: S608
            params = []
            for company_id, object_uuid in chunk:
                params += [
                    company_id,
                    field.get_db_prep_value(object_uuid, connection),
                    wanted[(company_id, object_uuid)],
                ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            for company_id, object_uuid, sequence in cursor.fetchall():
                last[(company_id, UUID(str(object_uuid)))] = sequence
    # Hand the reserved numbers out in draft order: the first draft of an object gets the lowest.
    next_number = {key: last[key] - count + 1 for key, count in wanted.items()}
    numbers = []
    for draft in drafts:
        key = (draft.company_id, draft.object_uuid)
        numbers.append(next_number[key])
        next_number[key] += 1
    return numbers


def _wake_worker() -> None:
    deliveries_due_wake()


def wake_worker_after_commit() -> None:
    """One wake-up per transaction, however many events it wrote."""
    if any(callback is _wake_worker for _ids, callback, _robust in connection.run_on_commit):
        return
    transaction.on_commit(_wake_worker, robust=True)


def _copy_events(events: list[Event]) -> None:
    """PostgreSQL COPY for the thousands of events a lifecycle command writes: ids drawn from the table's
    sequence first, then one COPY. Django's bulk insert quotes every JSON document client-side, which cost
    more than the rest of `settle` put together."""
    meta = Event._meta
    table = connection.ops.quote_name(meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT nextval(pg_get_serial_sequence('{meta.db_table}', 'id')) FROM generate_series(1, %s)",  # noqa: S608
            [len(events)],
        )
        for event, (pk,) in zip(events, cursor.fetchall(), strict=True):
            event.pk = pk
        columns = "id, company_id, uuid, type, object_uuid, sequence, data, created_at, fanout_pending"
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for event in events:
                copy.write_row(
                    (
                        event.pk,
                        event.company_id,
                        event.uuid,
                        event.type,
                        event.object_uuid,
                        event.sequence,
                        orjson.dumps(event.data).decode(),
                        event.created_at,
                        event.fanout_pending,
                    )
                )


# The outbox write of a few events (a charge writes one or two) in one round trip on PostgreSQL: reserve the
# sequence numbers (the upsert of `_sequences`, in the same lock order) and insert the events numbered in draft
# order (`back`: how many later drafts of the same object share the reservation), each marked for fan-out when
# its company has a live endpoint. The deliveries themselves are made by a worker after commit (N5), so a
# charge costs the same with 16 endpoints as with none. `counts` and `drafts` are where the rows come from:
# arrays (`_ARRAYS`) or one row of parameters each (`_rows`).
_RESERVED = """reserved AS (
    INSERT INTO {sequence} AS s (company_id, object_uuid, last_sequence)
    SELECT * FROM {counts} ORDER BY 1, 2
    ON CONFLICT (company_id, object_uuid) DO UPDATE SET last_sequence = s.last_sequence + excluded.last_sequence
    RETURNING company_id, object_uuid, last_sequence
)"""
_WRITTEN = """INSERT INTO {event} (company_id, uuid, type, object_uuid, sequence, data, created_at, fanout_pending)
SELECT r.company_id, d.uuid, d.type, r.object_uuid, r.last_sequence - d.back, d.data::jsonb{merge}, %s,
       EXISTS (SELECT 1 FROM {endpoint} e WHERE e.company_id = d.company_id AND e.enabled AND e.deleted_at IS NULL)
FROM {drafts} AS d (company_id, object_uuid, uuid, type, data, back, ord)
JOIN reserved r ON r.company_id = d.company_id AND r.object_uuid = d.object_uuid{join}
ORDER BY d.ord
RETURNING id, uuid, sequence, fanout_pending"""
_ARRAYS = {
    "counts": "unnest(%s::bigint[], %s::uuid[], %s::bigint[])",
    "drafts": "unnest(%s::bigint[], %s::uuid[], %s::uuid[], %s::text[], %s::text[], %s::bigint[]) WITH ORDINALITY",
}
_OUTBOX_SQL = "WITH " + _RESERVED + "\n" + _WRITTEN
# The same after the INSERT of the one row the events are about, all one statement: a charge's row, its `created`
# trail (the row's trigger) and its events in one round trip. Each event's data takes the values only the INSERT
# knows (`merge`) from what it returned.
_ROW_AND_OUTBOX_SQL = (
    "WITH made AS ({row}),\n"
    + _RESERVED
    + ",\nwritten AS (\n"
    + _WRITTEN
    + "\n)\nSELECT made.*, written.id, written.uuid, written.sequence, written.fanout_pending"
    + " FROM made CROSS JOIN written"
)


def _rows(objects: int, events: int) -> dict[str, str]:
    """`counts` and `drafts` as rows of parameters, for a statement the server prepares (a charge's): psycopg dumps
    an array parameter in Python, element by element, and escapes each quote of a JSON document in one; that cost
    a charge more CPU than the rest of its outbox write."""
    counts = ", ".join(["(%s::bigint, %s::uuid, %s::bigint)"] * objects)
    drafts = ", ".join(f"(%s::bigint, %s::uuid, %s::uuid, %s::text, %s::text, %s::bigint, {n})" for n in range(events))
    return {"counts": f"(VALUES {counts}) AS c", "drafts": f"(VALUES {drafts})"}


def _outbox_params(events: list[Event], now: datetime, *, rows: bool = False) -> list[Any]:
    """The parameters of `_RESERVED` and `_WRITTEN`, in their order: arrays, or (`rows`) those of `_rows`."""
    keys = [(event.company_id, event.object_uuid) for event in events]
    wanted, seen, back = Counter(keys), Counter(), []
    for key in keys:
        seen[key] += 1
        back.append(wanted[key] - seen[key])
    drafts = [
        (event.company_id, event.object_uuid, event.uuid, event.type, orjson.dumps(event.data).decode(), later)
        for event, later in zip(events, back, strict=True)
    ]
    if rows:
        counts = [
            value for (company_id, object_uuid), count in wanted.items() for value in (company_id, object_uuid, count)
        ]
        return [*counts, now, *(value for draft in drafts for value in draft)]
    return [
        [company_id for company_id, _ in wanted],
        [object_uuid for _, object_uuid in wanted],
        list(wanted.values()),
        now,
        *(list(column) for column in zip(*drafts, strict=True)),
    ]


def _unsaved(drafts: Sequence[EventDraft], now: datetime) -> list[Event]:
    return [
        Event(
            company_id=draft.company_id, type=draft.type, object_uuid=draft.object_uuid, data=draft.data, created_at=now
        )
        for draft in drafts
    ]


def _tables(**more: str) -> dict[str, str]:
    quote = connection.ops.quote_name
    tables = {"sequence": ObjectSequence, "event": Event, "endpoint": WebhookEndpoint}
    return {name: quote(model._meta.db_table) for name, model in tables.items()} | more


def _mark_saved(by_uuid: dict[UUID, Event], pk: int, event_uuid: Any, sequence: int, fanout_pending: bool) -> None:
    event = by_uuid[UUID(str(event_uuid))]
    event.pk, event.sequence, event.fanout_pending = pk, sequence, fanout_pending
    event._state.adding, event._state.db = False, connection.alias


def _outbox_write(drafts: Sequence[EventDraft], now: datetime) -> list[Event]:
    """PostgreSQL, a few drafts: the events, saved and marked for fan-out, in one statement."""
    events = _unsaved(drafts, now)
    by_uuid = {event.uuid: event for event in events}
    with connection.cursor() as cursor:
        cursor.execute(_OUTBOX_SQL.format(**_tables(**_ARRAYS, merge="", join="")), _outbox_params(events, now))
        for values in cursor.fetchall():
            _mark_saved(by_uuid, *values)
    return events


def row_and_events_record(
    drafts: Sequence[EventDraft], *, row: tuple[str, list[Any]], returning: Sequence[str], merge: dict[str, str]
) -> tuple[tuple[Any, ...], list[Event]]:
    """PostgreSQL only, in the caller's transaction (or as a transaction of its own: one statement): `row`, an
    INSERT ... RETURNING (SQL, parameters) of the object the drafts are about, and the drafts' events, in one
    statement; each event's data gets `merge` (JSON name -> one of the `returning` columns, those the INSERT returns
    in order) from the row. Returns what the INSERT returned and the events, as `events_record` would have written
    them after it."""
    now = timezone.now()
    events = _unsaved(drafts, now)
    quote = connection.ops.quote_name
    merged_sql = ", ".join(f"'{name}', made.{quote(column)}" for name, column in merge.items())
    sources = _rows(len({(event.company_id, event.object_uuid) for event in events}), len(events))
    sql = _ROW_AND_OUTBOX_SQL.format(
        **_tables(row=row[0], **sources, merge=f" || jsonb_build_object({merged_sql})", join="\nCROSS JOIN made")
    )
    by_uuid = {event.uuid: event for event in events}
    returned: tuple[Any, ...] = ()
    with prepared_cursor(connection) as cursor:
        cursor.execute(sql, [*row[1], *_outbox_params(events, now, rows=True)])
        for values in cursor.fetchall():
            returned = tuple(values[:-4])
            _mark_saved(by_uuid, *values[-4:])
    merged = {name: returned[list(returning).index(column)] for name, column in merge.items()}
    for event in events:  # the data as stored
        event.data = {**event.data, **merged}
    if any(event.fanout_pending for event in events):
        wake_worker_after_commit()
    return returned, events


def _events_insert(drafts: Sequence[EventDraft], now: datetime) -> list[Event]:
    """Any database, any number of drafts: sequences, then the events (COPY for many on PostgreSQL)."""
    with_endpoints = set(
        WebhookEndpoint.objects.filter(
            company_id__in={draft.company_id for draft in drafts}, enabled=True, deleted_at__isnull=True
        ).values_list("company_id", flat=True)
    )
    events = [
        Event(
            company_id=draft.company_id,
            type=draft.type,
            object_uuid=draft.object_uuid,
            sequence=sequence,
            data=draft.data,
            created_at=now,
            fanout_pending=draft.company_id in with_endpoints,
        )
        for draft, sequence in zip(drafts, _sequences(drafts), strict=True)
    ]
    if connection.vendor == "postgresql" and len(events) >= COPY_THRESHOLD:
        _copy_events(events)
    else:
        Event.objects.bulk_create(events)
    return events


def events_record(drafts: Sequence[EventDraft]) -> list[Event]:
    """The outbox write for many events at once (lifecycle commands): the events only; a worker fans them out
    to the subscribed endpoints after commit. Runs in the caller's transaction (a savepoint of its own would
    cost two more round trips on every charge)."""
    if not drafts:
        return []
    if not connection.in_atomic_block:
        with transaction.atomic():
            return events_record(drafts)
    now = timezone.now()
    if connection.vendor == "postgresql" and len(drafts) < COPY_THRESHOLD:
        events = _outbox_write(drafts, now)
    else:
        events = _events_insert(drafts, now)
    if any(event.fanout_pending for event in events):
        wake_worker_after_commit()
    return events


def events_record_many(drafts: Sequence[EventDraft]) -> int:
    """`events_record` for the tens of thousands of events of a lifecycle command, when the caller needs no Event
    back: on PostgreSQL the same sequences and the same rows, COPYed straight from the drafts (no model instance
    per event, ids from the table's default). Returns how many were written."""
    if connection.vendor != "postgresql" or len(drafts) < COPY_THRESHOLD:
        return len(events_record(drafts))
    if not connection.in_atomic_block:
        with transaction.atomic():
            return events_record_many(drafts)
    now = timezone.now()
    with_endpoints = set(
        WebhookEndpoint.objects.filter(
            company_id__in={draft.company_id for draft in drafts}, enabled=True, deleted_at__isnull=True
        ).values_list("company_id", flat=True)
    )
    table = connection.ops.quote_name(Event._meta.db_table)
    columns = "company_id, uuid, type, object_uuid, sequence, data, created_at, fanout_pending"
    numbers = _sequences(drafts)  # before the COPY: the connection runs nothing else while it is open
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for draft, sequence in zip(drafts, numbers, strict=True):
            copy.write_row(
                (
                    draft.company_id,
                    uuid4(),
                    draft.type,
                    draft.object_uuid,
                    sequence,
                    orjson.dumps(draft.data).decode(),
                    now,
                    draft.company_id in with_endpoints,
                )
            )
    if with_endpoints:
        wake_worker_after_commit()
    return len(drafts)


# The outbox write of a lifecycle command's events when PostgreSQL renders their data (`events_record_selected`):
# `select` gives (company_id, object_uuid, ord) per event, and the events are numbered and inserted in `ord` order,
# as `events_record_many` writes its drafts; nothing travels back but the count. Each event's `data` is rendered
# last, row by row from rows already in order (the subquery's ORDER BY, which the outer one reuses), so the sorts
# carry narrow rows: with the record (~850 bytes) in their rows, each of the three spilled to disk at 5,000 events.
_SELECTED_SQL = """WITH drafts AS MATERIALIZED ({select}),
counted AS MATERIALIZED (
    SELECT d.*, count(*) OVER (PARTITION BY company_id, object_uuid ORDER BY ord DESC) - 1 AS back FROM drafts d
),
reserved AS (
    INSERT INTO {sequence} AS s (company_id, object_uuid, last_sequence)
    SELECT company_id, object_uuid, count(*) FROM drafts GROUP BY 1, 2 ORDER BY 1, 2
    ON CONFLICT (company_id, object_uuid) DO UPDATE SET last_sequence = s.last_sequence + excluded.last_sequence
    RETURNING company_id, object_uuid, last_sequence
),
written AS (
    INSERT INTO {event} (company_id, uuid, type, object_uuid, sequence, data, created_at, fanout_pending)
    SELECT d.company_id, gen_random_uuid(), %s, d.object_uuid, d.sequence, {data}, %s,
           d.company_id IN (SELECT company_id FROM {endpoint} WHERE enabled AND deleted_at IS NULL)
    FROM (
        SELECT c.company_id, c.object_uuid, r.last_sequence - c.back AS sequence, c.ord
        FROM counted c JOIN reserved r ON r.company_id = c.company_id AND r.object_uuid = c.object_uuid
        ORDER BY c.ord
    ) d
    ORDER BY d.ord
    RETURNING fanout_pending
)
SELECT count(*), coalesce(bool_or(fanout_pending), false) FROM written"""


def events_record_selected(select: str, params: Sequence[Any], *, type: str, data: str) -> int:
    """PostgreSQL only, in the caller's transaction (one statement, so atomic without one): the events of type
    `type` whose rows `select` (SQL and its `params`) gives as (company_id, object_uuid, ord), each with the data
    `data` renders (an SQL expression of that row, `d`: a scalar subquery of `d.ord`, say), written by one statement
    that reserves their sequence numbers as `events_record_many` does. The data never leaves the server. Returns how
    many were written."""
    with connection.cursor() as cursor:
        cursor.execute(_SELECTED_SQL.format(**_tables(select=select, data=data)), [*params, type, timezone.now()])
        written, fanout_pending = cursor.fetchone()
    if fanout_pending:
        wake_worker_after_commit()
    return written


def events_fan_out(*, limit: int = FANOUT_CHUNK) -> int:
    """Worker side of the outbox: turn up to `limit` events marked for fan-out into one delivery per endpoint
    that is live and subscribed (and existed when the event happened). Rows another worker is fanning out are
    skipped. Returns how many events were fanned out."""
    with transaction.atomic():
        events = list(
            Event.objects.filter(fanout_pending=True)
            .order_by("id")
            .select_for_update(skip_locked=True)
            .values_list("pk", "company_id", "type", "created_at")[:limit]
        )
        if not events:
            return 0
        by_company: dict[int, list[tuple[int, list, datetime]]] = {}
        endpoints = WebhookEndpoint.objects.filter(
            company_id__in={company_id for _, company_id, _, _ in events}, enabled=True, deleted_at__isnull=True
        ).values_list("pk", "company_id", "event_types", "created_at")
        for pk, company_id, event_types, created_at in endpoints:
            by_company.setdefault(company_id, []).append((pk, event_types, created_at))
        now = timezone.now()
        Delivery.objects.bulk_create(
            [
                Delivery(company_id=company_id, event_id=event_id, endpoint_id=pk, next_attempt_at=now, created_at=now)
                for event_id, company_id, event_type, happened_at in events
                for pk, event_types, created_at in by_company.get(company_id, ())
                if created_at <= happened_at and subscribed(event_types, event_type)
            ],
            ignore_conflicts=True,  # a replay may have queued one already
            batch_size=1000,
        )
        Event.objects.filter(pk__in=[event_id for event_id, *_ in events]).update(fanout_pending=False)
    return len(events)


def event_record(*, company_id: int, type: str, object_uuid: UUID, data: dict[str, Any]) -> Event:
    """Record one event in the caller's transaction. `data` is the object as its GET route shows it."""
    return events_record([EventDraft(company_id=company_id, type=type, object_uuid=object_uuid, data=data)])[0]
