"""Wire shapes of events, endpoints and attempts (CONTRACT 9), shared by the API and the webhook body."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from events.models import DeliveryAttempt, Event, WebhookEndpoint


def iso_utc(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


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
        "description": endpoint.description or None,
        "eventTypes": list(endpoint.event_types),
        "enabled": endpoint.enabled,
        "disabledReason": endpoint.disabled_reason or None,
        "disabledAt": iso_utc(endpoint.disabled_at),
        "createdAt": iso_utc(endpoint.created_at),
    }


def attempt_record(attempt: DeliveryAttempt) -> dict[str, Any]:
    return {
        "endpointUuid": str(attempt.endpoint.uuid),
        "attemptedAt": iso_utc(attempt.attempted_at),
        "statusCode": attempt.status_code,
        "durationMs": attempt.duration_ms,
        "error": attempt.error or None,
    }
