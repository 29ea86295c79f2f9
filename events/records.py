"""Wire shapes of events, endpoints and attempts (CONTRACT 9), shared by the API and the webhook body."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from events.models import DeliveryAttempt, Event, WebhookEndpoint
from vault.records import iso_utc, text_or_none


def event_body(event: Event, *, company_uuid: Any = None) -> dict[str, Any]:
    """What GET /events/{id} returns as `data` and what a webhook delivers as its JSON body."""
    return {
        "id": str(event.uuid),
        "type": event.type,
        "timestamp": iso_utc(event.created_at),
        "companyUuid": str(company_uuid or event.company.uuid),
        "objectUuid": str(event.object_uuid),
        "sequence": event.sequence,
        "data": event.data,
    }


def endpoint_record(endpoint: WebhookEndpoint) -> dict[str, Any]:
    """An endpoint as the API shows it; the secret never appears here (only once, in the create and rotate
    answers)."""
    return {
        "uuid": str(endpoint.uuid),
        "url": endpoint.url,
        "description": text_or_none(endpoint.description),
        "eventTypes": list(endpoint.event_types),
        "enabled": endpoint.enabled,
        "disabledReason": text_or_none(endpoint.disabled_reason),
        "disabledAt": iso_utc(endpoint.disabled_at),
        "createdAt": iso_utc(endpoint.created_at),
        "circuit": circuit_record(endpoint),
    }


def circuit_record(endpoint: WebhookEndpoint, now: datetime | None = None) -> dict[str, Any]:
    """The endpoint's circuit breaker (N6): `closed` (sending), `open` (nothing sent before `openUntil`, after
    consecutive failures) or `half_open` (the next delivery is a trial: success closes it, failure reopens it
    for longer)."""
    open_until = endpoint.circuit_open_until
    if open_until is None:
        state = "closed"
    elif open_until > (now or datetime.now(UTC)):
        state = "open"
    else:
        state = "half_open"
    return {
        "state": state,
        "consecutiveFailures": endpoint.consecutive_failures,
        "openUntil": iso_utc(open_until),
    }


def attempt_record(attempt: DeliveryAttempt) -> dict[str, Any]:
    return {
        "endpointUuid": str(attempt.endpoint.uuid),
        "attemptedAt": iso_utc(attempt.attempted_at),
        "statusCode": attempt.status_code,
        "durationMs": attempt.duration_ms,
        "error": text_or_none(attempt.error),
    }
