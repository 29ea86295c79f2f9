"""Staff changes to a merchant's own access, written with the event that tells the merchant (the outbox): an API
key's scope (N3) and the company's suspension (L7). Called by the accounts admin (backoffice.accounts_admin); here
because the event outbox is this app's and accounts sits below it."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import ApiKey, Company
from events.outbox import event_record
from events.types import EventType
from vault.errors import ApiError
from vault.records import iso_utc


@transaction.atomic
def api_key_scope_change(*, api_key: ApiKey, actions: list[str] | None) -> ApiKey:
    """Set the key's own actions (None: follow the live group) and tell the merchant. No change, no event."""
    locked = ApiKey.objects.select_for_update().get(pk=api_key.pk)
    previous = locked.actions
    if previous == actions:
        return locked
    locked.actions = actions
    locked.save(update_fields=["actions"])
    event_record(
        company_id=locked.company_id,
        type=EventType.API_KEY_SCOPE_CHANGED,
        object_uuid=locked.company.uuid,
        data={"prefix": locked.prefix, "name": locked.name, "previousActions": previous, "actions": actions},
    )
    return locked


def api_key_scope_widens(*, previous: list[str] | None, actions: list[str] | None) -> bool:
    """Whether `actions` lets the key do anything `previous` did not (None is the whole live group)."""
    if actions is None:
        return previous is not None
    return previous is not None and not set(actions) <= set(previous)


@transaction.atomic
def company_suspend(*, company: Company, reason: str) -> Company:
    reason = reason.strip()
    if not reason:
        raise ApiError("a suspension needs a reason", field="suspensionReason")
    locked = Company.objects.select_for_update().get(pk=company.pk)
    if locked.suspended_at is not None:
        return locked
    locked.suspended_at, locked.suspension_reason = timezone.now(), reason
    locked.save(update_fields=["suspended_at", "suspension_reason"])
    event_record(
        company_id=locked.pk,
        type=EventType.COMPANY_SUSPENDED,
        object_uuid=locked.uuid,
        data={"companyUuid": str(locked.uuid), "reason": reason, "suspendedAt": iso_utc(locked.suspended_at)},
    )
    return locked


@transaction.atomic
def company_reinstate(*, company: Company) -> Company:
    locked = Company.objects.select_for_update().get(pk=company.pk)
    if locked.suspended_at is None:
        return locked
    locked.suspended_at, locked.suspension_reason = None, ""
    locked.save(update_fields=["suspended_at", "suspension_reason"])
    event_record(
        company_id=locked.pk,
        type=EventType.COMPANY_REINSTATED,
        object_uuid=locked.uuid,
        data={"companyUuid": str(locked.uuid), "reinstatedAt": iso_utc(timezone.now())},
    )
    return locked
