"""A revoked mandate stops money at once (CONTRACT 14, 2026-12-07). Whoever revokes it (the merchant's route, support
in the back office, a return that says the payer withdrew or never gave it), the same database transaction voids every
debit under it not yet in a file (Pending or HELD: a schedule's debits and made re-presentments name the mandate too)
and cancels its scheduled re-presentments. Every revoking path comes through here (tests/mandates/test_revocation_
stops_money.py holds it); `originate` and `release_holds` refuse what would slip past (transactions.ach.recheck and
holds)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from mandates.models import Mandate
from mandates.services import mandate_revoke, mandates_revoke_for_methods
from transactions.charges.retry_attempts import Reason, retry_attempts_close
from transactions.models import RetryAttempt, Status, Transaction
from transactions.state import Actor, Event, transition_many

# The statuses of a debit not yet in a file: what a revocation still stops.
UNSENT = (Status.PENDING, Status.HELD)


def mandate_stop_reason(mandate: Mandate) -> str:
    """The failureReason of a debit its mandate's revocation stopped."""
    return f"mandate revoked: {mandate.revoked_reason}"[:255]


def mandate_debits_stop(mandates: Sequence[Mandate], *, actor: Actor, at: datetime) -> list[str]:
    """Every unsent debit under `mandates` (revoked, in the caller's transaction) voided with the revocation as its
    reason and its event, and their scheduled re-presentments cancelled. Returns the voided debits' uuids."""
    if not mandates:
        return []
    voided: list[str] = []
    for mandate in mandates:
        why = mandate_stop_reason(mandate)
        moved = transition_many(
            Transaction.objects.filter(company_id=mandate.company_id, mandate_id=mandate.pk, status__in=UNSENT),
            Event.MANDATE_REVOKED,
            actor=actor,
            at=at,
            changes={"voided_at": at, "failure_reason": why},
            reason=why,
            read=("uuid",),
        )
        voided += [str(uuid) for _pk, uuid in moved]
    ids = [mandate.pk for mandate in mandates]
    scheduled = RetryAttempt.objects.filter(
        Q(original__mandate_id__in=ids) | Q(returned__mandate_id__in=ids), state=RetryAttempt.State.SCHEDULED
    )
    retry_attempts_close(list(scheduled), state=RetryAttempt.State.CANCELLED, reason=Reason.MANDATE_REVOKED, at=at)
    return voided


@transaction.atomic
def mandate_revoke_stopping(
    *, mandate: Mandate, reason: str, actor: Actor, by: str | None = None, now: datetime | None = None
) -> Mandate:
    """The merchant's `POST /mandates/{uuid}/revoke` and support's revoke action: active -> revoked (409 when it is
    revoked already), and its unsent debits voided, in one database transaction. `by`: who, on the mandate (the
    actor's id unless given)."""
    now = now or timezone.now()
    revoked = mandate_revoke(mandate=mandate, reason=reason, by=by or actor.id, now=now)
    mandate_debits_stop([revoked], actor=actor, at=now)
    return revoked


def mandates_revoke_for_returns(*, reasons: dict[tuple[int, int], str], actor: Actor, at: datetime) -> int:
    """A return file's revocations (R05, R07, R10, R11, R29, R51: every active mandate of the returned entry's saved
    method), with their debits stopped, in the import's transaction. Returns how many mandates."""
    revoked = mandates_revoke_for_methods(reasons=reasons, by=actor.id, now=at)
    mandate_debits_stop(revoked, actor=actor, at=at)
    return len(revoked)
