"""Writes for events and webhook endpoints.

`event_record` / `events_record` are the outbox: callers invoke them inside their own atomic block, with the
object already rendered as its GET route shows it, so the event commits (or rolls back) with the change.
A worker is asked to deliver once the transaction commits; run_worker also sweeps for anything due, so an
event whose wake-up was lost is still sent."""

from __future__ import annotations

import base64
import json
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import orjson
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from accounts.models import Company
from events.destinations import UnsafeDestination, destination_resolve
from events.models import Delivery, DeliveryAttempt, Event, ObjectSequence, WebhookEndpoint, WebhookReplay
from events.records import endpoint_record
from events.types import ALL_TYPES, GROUP_WILDCARDS, EventType, subscribed
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict, NotFound, Throttled

SEQUENCE_CHUNK = 500
COPY_THRESHOLD = 200
SECRET_BYTES = 32
MAX_REPLAY_EVENTS = 100_000
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
            params: list[Any] = [[key[0] for key in chunk], [key[1] for key in chunk], [wanted[key] for key in chunk]]
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
    from events.tasks import deliver_webhooks_soon  # tasks -> delivery -> services: imported when first used

    deliver_webhooks_soon()


def _wake_worker_after_commit() -> None:
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
# charge costs the same with 16 endpoints as with none. Kept plain: it is planned on every charge.
_OUTBOX_SQL = """
WITH reserved AS (
    INSERT INTO {sequence} AS s (company_id, object_uuid, last_sequence)
    SELECT * FROM unnest(%(company)s::bigint[], %(object)s::uuid[], %(count)s::bigint[]) ORDER BY 1, 2
    ON CONFLICT (company_id, object_uuid) DO UPDATE SET last_sequence = s.last_sequence + excluded.last_sequence
    RETURNING company_id, object_uuid, last_sequence
)
INSERT INTO {event} (company_id, uuid, type, object_uuid, sequence, data, created_at, fanout_pending)
SELECT r.company_id, d.uuid, d.type, r.object_uuid, r.last_sequence - d.back, d.data::jsonb, %(now)s,
       EXISTS (SELECT 1 FROM {endpoint} e WHERE e.company_id = d.company_id AND e.enabled AND e.deleted_at IS NULL)
FROM unnest(%(draft_company)s::bigint[], %(draft_object)s::uuid[], %(uuid)s::uuid[], %(type)s::text[],
            %(data)s::text[], %(back)s::bigint[])
     WITH ORDINALITY AS d (company_id, object_uuid, uuid, type, data, back, ord)
JOIN reserved r ON r.company_id = d.company_id AND r.object_uuid = d.object_uuid
ORDER BY d.ord
RETURNING id, uuid, sequence, fanout_pending
"""


def _outbox_params(events: list[Event], now: datetime) -> dict[str, Any]:
    keys = [(event.company_id, event.object_uuid) for event in events]
    wanted, seen, back = Counter(keys), Counter(), []
    for key in keys:
        seen[key] += 1
        back.append(wanted[key] - seen[key])
    return {
        "company": [company_id for company_id, _ in wanted],
        "object": [object_uuid for _, object_uuid in wanted],
        "count": list(wanted.values()),
        "draft_company": [event.company_id for event in events],
        "draft_object": [event.object_uuid for event in events],
        "uuid": [event.uuid for event in events],
        "type": [event.type for event in events],
        "data": [json.dumps(event.data) for event in events],  # as JSONField writes it
        "back": back,
        "now": now,
    }


def _outbox_write(drafts: Sequence[EventDraft], now: datetime) -> list[Event]:
    """PostgreSQL, a few drafts: the events, saved and marked for fan-out, in one statement."""
    events = [
        Event(
            company_id=draft.company_id, type=draft.type, object_uuid=draft.object_uuid, data=draft.data, created_at=now
        )
        for draft in drafts
    ]
    sql = _OUTBOX_SQL.format(
        sequence=connection.ops.quote_name(ObjectSequence._meta.db_table),
        event=connection.ops.quote_name(Event._meta.db_table),
        endpoint=connection.ops.quote_name(WebhookEndpoint._meta.db_table),
    )
    by_uuid = {event.uuid: event for event in events}
    with connection.cursor() as cursor:
        cursor.execute(sql, _outbox_params(events, now))
        for pk, event_uuid, sequence, fanout_pending in cursor.fetchall():
            event = by_uuid[UUID(str(event_uuid))]
            event.pk, event.sequence, event.fanout_pending = pk, sequence, fanout_pending
            event._state.adding, event._state.db = False, connection.alias
    return events


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
        _wake_worker_after_commit()
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
        _wake_worker_after_commit()
    return len(drafts)


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


# --- endpoints ----------------------------------------------------------------------------------------------


def secret_generate() -> str:
    """A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def event_types_validate(event_types: list[str]) -> list[str]:
    if not event_types:
        raise ApiError("eventTypes must name at least one type, or *", field="eventTypes", code=ErrorCode.REQUIRED)
    known = set(EventType.values) | GROUP_WILDCARDS | {ALL_TYPES}
    unknown = sorted({name for name in event_types if name not in known})
    if unknown:
        raise ApiError(f"unknown event types: {', '.join(unknown)}", field="eventTypes", code=ErrorCode.INVALID_CHOICE)
    return list(dict.fromkeys(event_types))


def url_validate(url: str) -> str:
    try:
        destination_resolve(url)
    except UnsafeDestination as exc:
        raise ApiError(str(exc), field="url", code=ErrorCode.UNSAFE_URL) from None
    return url


def endpoint_lock(*, company: Company, endpoint_uuid: UUID) -> WebhookEndpoint:
    endpoint = (
        WebhookEndpoint.objects.select_for_update()
        .filter(company=company, uuid=endpoint_uuid, deleted_at__isnull=True)
        .first()
    )
    if endpoint is None:
        raise NotFound("Webhook endpoint not found")
    return endpoint


def _endpoint_caps_check(*, company: Company, url: str, exclude_pk: int | None = None) -> None:
    """N5: at most WEBHOOK_ENDPOINTS_PER_COMPANY live endpoints, each URL once. The caller holds the company's
    row lock, so parallel creates cannot both see a free place (the URL is also unique in the database)."""
    live = WebhookEndpoint.objects.filter(company=company, deleted_at__isnull=True).exclude(pk=exclude_pk)
    if live.filter(url=url).exists():
        raise Conflict("an endpoint with this url already exists", field="url", code=ErrorCode.ENDPOINT_URL_EXISTS)
    if exclude_pk is None and live.count() >= settings.WEBHOOK_ENDPOINTS_PER_COMPANY:
        raise Conflict(
            f"a company may have at most {settings.WEBHOOK_ENDPOINTS_PER_COMPANY} webhook endpoints",
            code=ErrorCode.ENDPOINT_LIMIT_REACHED,
        )


def _company_lock(company: Company) -> None:
    Company.objects.select_for_update().filter(pk=company.pk).first()


def endpoint_create(*, company: Company, url: str, event_types: list[str], description: str = "") -> WebhookEndpoint:
    url = url_validate(url)  # DNS, before any transaction (N6)
    event_types = event_types_validate(event_types)
    with transaction.atomic():
        _company_lock(company)
        _endpoint_caps_check(company=company, url=url)
        return WebhookEndpoint.objects.create(
            company=company, url=url, event_types=event_types, description=description, secret=secret_generate()
        )


def _cancel_pending(endpoint: WebhookEndpoint) -> None:
    Delivery.objects.filter(company_id=endpoint.company_id, endpoint=endpoint, status=Delivery.Status.PENDING).update(
        status=Delivery.Status.CANCELLED, leased_until=None
    )


def endpoint_update(*, company: Company, endpoint_uuid: UUID, changes: dict[str, Any]) -> WebhookEndpoint:
    """`changes` holds any of url, event_types, description, enabled. Enabling again clears the platform's
    disable; disabling cancels what is still owed (a replay can send it later). A new URL is resolved before
    the endpoint's row is locked (N6: a slow DNS server holds no lock)."""
    url = url_validate(changes["url"]) if "url" in changes else None
    with transaction.atomic():
        if url is not None:
            _company_lock(company)
        return _endpoint_change(company=company, endpoint_uuid=endpoint_uuid, url=url, changes=changes)


def _endpoint_change(*, company: Company, endpoint_uuid: UUID, url: str | None, changes: dict[str, Any]):
    endpoint = endpoint_lock(company=company, endpoint_uuid=endpoint_uuid)
    if url is not None:
        _endpoint_caps_check(company=company, url=url, exclude_pk=endpoint.pk)
        endpoint.url = url
    if "event_types" in changes:
        endpoint.event_types = event_types_validate(changes["event_types"])
    if "description" in changes:
        endpoint.description = changes["description"]
    if "enabled" in changes and changes["enabled"] != endpoint.enabled:
        endpoint.enabled = changes["enabled"]
        if endpoint.enabled:
            endpoint.disabled_at, endpoint.disabled_reason = None, ""
            endpoint.failing_since, endpoint.needs_attention = None, False
            endpoint.consecutive_failures, endpoint.circuit_open_until = 0, None
        else:
            endpoint.disabled_at, endpoint.disabled_reason = timezone.now(), "disabled by the merchant"
            _cancel_pending(endpoint)
    endpoint.save()
    return endpoint


@transaction.atomic
def endpoint_delete(*, company: Company, endpoint_uuid: UUID) -> None:
    """Soft delete: attempts stay listed under their events; nothing more is sent."""
    endpoint = endpoint_lock(company=company, endpoint_uuid=endpoint_uuid)
    endpoint.deleted_at = timezone.now()
    endpoint.enabled = False
    endpoint.save(update_fields=["deleted_at", "enabled"])
    _cancel_pending(endpoint)


@transaction.atomic
def endpoint_rotate_secret(*, company: Company, endpoint_uuid: UUID) -> WebhookEndpoint:
    """A new secret; the current one keeps signing beside it for WEBHOOK_PREVIOUS_SECRET_HOURS (24 h) so
    receivers can switch without losing a message (Standard Webhooks: several signatures in one header)."""
    endpoint = endpoint_lock(company=company, endpoint_uuid=endpoint_uuid)
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_expires_at = timezone.now() + timedelta(hours=settings.WEBHOOK_PREVIOUS_SECRET_HOURS)
    endpoint.secret = secret_generate()
    endpoint.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at"])
    return endpoint


def endpoint_disable(*, endpoint: WebhookEndpoint, reason: str, now: datetime) -> None:
    """The platform gives up on an endpoint (410, or failing for days): disabled, flagged in the admin, what
    is still owed cancelled, and the merchant told by a `webhook_endpoint.disabled` event."""
    updated = WebhookEndpoint.objects.filter(pk=endpoint.pk, enabled=True).update(
        enabled=False, disabled_at=now, disabled_reason=reason[:255], needs_attention=True
    )
    if not updated:
        return
    endpoint.refresh_from_db()
    _cancel_pending(endpoint)
    event_record(
        company_id=endpoint.company_id,
        type=EventType.WEBHOOK_ENDPOINT_DISABLED,
        object_uuid=endpoint.uuid,
        data=endpoint_record(endpoint),
    )


@transaction.atomic
def endpoint_replay(
    *,
    company: Company,
    endpoint_uuid: UUID,
    event_uuids: list[UUID] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> int:
    """Owe the endpoint these events again (by id, or every subscribed event created in [since, until]),
    due now. Returns how many were queued. One replay may be in flight per endpoint (409 replay_in_flight),
    and a company replays at most WEBHOOK_REPLAY_EVENTS_PER_DAY events a day (429 replay_budget_exhausted)."""
    _company_lock(company)  # company before endpoint, as endpoint_update takes them; replays of a company take turns
    endpoint = endpoint_lock(company=company, endpoint_uuid=endpoint_uuid)
    if not endpoint.enabled:
        raise Conflict("the endpoint is disabled; enable it before replaying", code=ErrorCode.ENDPOINT_DISABLED)
    if Delivery.objects.filter(
        company=company, endpoint=endpoint, status=Delivery.Status.PENDING, replayed=True
    ).exists():
        raise Conflict(
            "a replay to this endpoint is still being delivered; retry when it is done",
            code=ErrorCode.REPLAY_IN_FLIGHT,
        )
    events = Event.objects.filter(company=company)
    if event_uuids is not None:
        wanted = set(event_uuids)
        ids = dict(events.filter(uuid__in=wanted).values_list("uuid", "pk"))
        missing = sorted(str(uuid) for uuid in wanted - set(ids))
        if missing:
            raise NotFound(f"Event not found: {', '.join(missing[:5])}", field="eventIds")
        event_ids = list(ids.values())
    else:
        in_range = events.filter(created_at__gte=since, created_at__lte=until).order_by("id")
        rows = list(in_range.values_list("pk", "type")[: MAX_REPLAY_EVENTS + 1])
        if len(rows) > MAX_REPLAY_EVENTS:
            raise ApiError(f"a replay may cover at most {MAX_REPLAY_EVENTS} events; narrow the range", field="since")
        event_ids = [pk for pk, event_type in rows if subscribed(endpoint.event_types, event_type)]
    now = timezone.now()
    _replay_budget_take(company=company, endpoint=endpoint, count=len(event_ids), now=now)
    Delivery.objects.bulk_create(
        [
            Delivery(
                company=company,
                event_id=event_id,
                endpoint=endpoint,
                next_attempt_at=now,
                created_at=now,
                replayed=True,
            )
            for event_id in event_ids
        ],
        update_conflicts=True,
        unique_fields=["company", "endpoint", "event"],
        # The lease stays: a delivery in flight finishes before the replay may be claimed.
        update_fields=["status", "next_attempt_at", "attempt_count", "replayed"],
        batch_size=1000,
    )
    if event_ids:
        _wake_worker_after_commit()
    return len(event_ids)


def _replay_budget_take(*, company: Company, endpoint: WebhookEndpoint, count: int, now: datetime) -> None:
    """Record the replay against the company's daily budget, or 429 when it would exceed it (the caller holds
    the company's row lock)."""
    day_ago = now - timedelta(days=1)
    recent = WebhookReplay.objects.filter(company=company, created_at__gt=day_ago)
    used = recent.aggregate(total=Sum("event_count"))["total"] or 0
    budget = settings.WEBHOOK_REPLAY_EVENTS_PER_DAY
    if used + count > budget:
        oldest = recent.order_by("created_at").values_list("created_at", flat=True).first() or now
        raise Throttled(
            f"replays may cover at most {budget} events a day; {max(budget - used, 0)} left",
            retry_after=max(int((oldest + timedelta(days=1) - now).total_seconds()) + 1, 1),
            code=ErrorCode.REPLAY_BUDGET_EXHAUSTED,
        )
    WebhookReplay.objects.create(company=company, endpoint=endpoint, event_count=count, created_at=now)


PURGE_CHUNK = 5000


def events_purge(*, before: datetime) -> int:
    """Delete events created before `before`, in chunks (each its own transaction); returns how many."""
    deleted = 0
    while True:
        ids = list(
            Event.objects.filter(created_at__lt=before).order_by("id").values_list("pk", flat=True)[:PURGE_CHUNK]
        )
        if not ids:
            return deleted
        with transaction.atomic():
            DeliveryAttempt.objects.filter(event_id__in=ids).delete()
            Delivery.objects.filter(event_id__in=ids).delete()
            Event.objects.filter(pk__in=ids).delete()
        deleted += len(ids)
