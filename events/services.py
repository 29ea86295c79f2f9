"""Writes for webhook endpoints: create, update, delete, rotate the secret, disable, replay; and the purge of old
events. The outbox itself is events/outbox.py."""

from __future__ import annotations

import base64
import secrets
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Sum
from django.utils import timezone

from accounts.models import Company
from events.destinations import UnsafeDestination, destination_resolve
from events.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint, WebhookReplay
from events.outbox import event_record, wake_worker_after_commit
from events.records import endpoint_record
from events.types import ALL_TYPES, GROUP_WILDCARDS, EventType, subscribed
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict, NotFound, Throttled

SECRET_BYTES = 32
MAX_REPLAY_EVENTS = 100_000


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
        wake_worker_after_commit()
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
    if connection.vendor == "postgresql":  # the BRIN index (events/0005) finds only the ranges it has summarized
        with connection.cursor() as cursor:
            cursor.execute("SELECT brin_summarize_new_values('event_created')")
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
