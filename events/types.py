"""Every event type a merchant can receive (CONTRACT 9): the one table endpoints' `eventTypes` are checked
against and docs/webhooks.md lists. Adding a type is one line."""

from __future__ import annotations

from django.db import models


class EventType(models.TextChoices):
    TRANSACTION_CREATED = "transaction.created"
    TRANSACTION_PROCESSING = "transaction.processing"
    TRANSACTION_SETTLED = "transaction.settled"
    TRANSACTION_RETURNED = "transaction.returned"
    TRANSACTION_LATE_RETURNED = "transaction.late_returned"
    TRANSACTION_HELD = "transaction.held"
    TRANSACTION_RELEASED = "transaction.released"
    TRANSACTION_DECLINED = "transaction.declined"
    TRANSACTION_VOIDED = "transaction.voided"
    TRANSACTION_REVERSED = "transaction.reversed"
    TRANSACTION_REJECTED = "transaction.rejected"
    TRANSACTION_RESTORED = "transaction.restored"
    TRANSACTION_UPDATED = "transaction.updated"
    TRANSACTION_RETRY_SCHEDULED = "transaction.retry_scheduled"
    TRANSACTION_RETRY_CANCELLED = "transaction.retry_cancelled"
    TRANSACTION_RETRIES_EXHAUSTED = "transaction.retries_exhausted"
    TRANSACTION_FUNDS_AVAILABLE = "transaction.funds_available"
    TRANSACTION_FINAL = "transaction.final"
    CUSTOMER_CREATED = "customer.created"
    CUSTOMER_UPDATED = "customer.updated"
    CUSTOMER_DEACTIVATED = "customer.deactivated"
    PAYMENT_METHOD_CREATED = "payment_method.created"
    PAYMENT_METHOD_UPDATED = "payment_method.updated"
    PAYMENT_METHOD_BLOCKED = "payment_method.blocked"
    PAYMENT_METHOD_DELETED = "payment_method.deleted"
    ACCOUNT_BLOCKED = "account.blocked"
    ACCOUNT_BLOCK_LIFTED = "account.block_lifted"
    RISK_THRESHOLD_WARNING = "risk.threshold_warning"
    RISK_THRESHOLD_BREACHED = "risk.threshold_breached"
    WEBHOOK_ENDPOINT_DISABLED = "webhook_endpoint.disabled"
    API_KEY_SCOPE_CHANGED = "api_key.scope_changed"
    COMPANY_SUSPENDED = "company.suspended"
    COMPANY_REINSTATED = "company.reinstated"
    ACH_FILE_TRANSMITTED = "ach_file.transmitted"
    ACH_FILE_ACKNOWLEDGED = "ach_file.acknowledged"
    ACH_FILE_REJECTED = "ach_file.rejected"
    ACH_FILE_UNACKNOWLEDGED = "ach_file.unacknowledged"
    ACH_FILE_EXCEPTION = "ach_file.exception"
    MANDATE_CREATED = "mandate.created"
    MANDATE_REVOKED = "mandate.revoked"
    SCHEDULE_PAYMENT_UPCOMING = "schedule.payment_upcoming"
    SCHEDULE_STOPPED = "schedule.stopped"
    SCHEDULE_COMPLETED = "schedule.completed"


ALL_TYPES = "*"
# `transaction.*` subscribes to every type of that object.
GROUP_WILDCARDS = frozenset(f"{value.split('.', 1)[0]}.*" for value in EventType.values)


def subscribed(event_types: list[str], event_type: str) -> bool:
    """Whether an endpoint with these `eventTypes` wants an event of `event_type`."""
    return ALL_TYPES in event_types or event_type in event_types or f"{event_type.split('.', 1)[0]}.*" in event_types
