"""Reads for events and webhook endpoints, always scoped to one company."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import QuerySet

from accounts.models import Company
from events.models import DeliveryAttempt, Event, WebhookEndpoint
from vault.error_codes import ErrorCode
from vault.errors import ApiError, NotFound

CURSOR_PREFIX = "evt:"


def endpoint_list(*, company: Company) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(company=company, deleted_at__isnull=True).order_by("created_at", "id")


def endpoint_get(*, company: Company, endpoint_uuid: UUID) -> WebhookEndpoint:
    endpoint = endpoint_list(company=company).filter(uuid=endpoint_uuid).first()
    if endpoint is None:
        raise NotFound("Webhook endpoint not found")
    return endpoint


def event_get(*, company: Company, event_uuid: UUID) -> Event:
    event = Event.objects.filter(company=company, uuid=event_uuid).select_related("company").first()
    if event is None:
        raise NotFound("Event not found")
    return event


def event_attempts(*, event: Event) -> QuerySet[DeliveryAttempt]:
    return (
        DeliveryAttempt.objects.filter(company_id=event.company_id, event=event)
        .select_related("endpoint")
        .order_by("attempted_at", "id")
    )


def cursor_encode(last_id: int) -> str:
    return base64.urlsafe_b64encode(f"{CURSOR_PREFIX}{last_id}".encode()).decode().rstrip("=")


def cursor_decode(cursor: str) -> int:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = ""
    digits = text[len(CURSOR_PREFIX) :]
    # isascii too: "²".isdigit() is True, and int() of it raised (N11: a 500).
    if not text.startswith(CURSOR_PREFIX) or not (digits.isascii() and digits.isdigit()):
        raise ApiError("cursor is not a cursor this API gave out", field="cursor", code=ErrorCode.INVALID)
    return int(digits)


def event_page(
    *,
    company: Company,
    filters: dict[str, Any],
    cursor: str | None,
    page_size: int,
) -> tuple[list[Event], str | None]:
    """Newest first (ids grow with time); `filters` holds type, object_uuid, since, until already parsed."""
    events = Event.objects.filter(company=company).select_related("company")
    if filters.get("type"):
        events = events.filter(type=filters["type"])
    if filters.get("object_uuid"):
        events = events.filter(object_uuid=filters["object_uuid"])
    since: datetime | None = filters.get("since")
    until: datetime | None = filters.get("until")
    if since is not None:
        events = events.filter(created_at__gte=since)
    if until is not None:
        events = events.filter(created_at__lte=until)
    if cursor:
        events = events.filter(pk__lt=cursor_decode(cursor))
    rows = list(events.order_by("-id")[: page_size + 1])
    next_cursor = cursor_encode(rows[page_size - 1].pk) if len(rows) > page_size else None
    return rows[:page_size], next_cursor
