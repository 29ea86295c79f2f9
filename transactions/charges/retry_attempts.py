"""Automatic re-presentment (CONTRACT 15): an R01/R09 return under an enabled retry policy schedules the next
presentment; `run_retries` makes the due ones through the manual route's own function (transactions.charges.retry),
so both share its count of 2, its 180-day limit and its `RETRY PYMT` batch. An attempt whose day falls past day 180
is skipped, never moved earlier; one whose debit can no longer be made is cancelled with the reason."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from django.db import transaction
from django.db.models import Count, Max

from events.types import EventType
from mandates.models import Mandate
from transactions import calendar
from transactions.charges.retry import MAX_RETRIES, RETRY_WINDOW, transaction_retry
from transactions.charges.retry_policy import next_attempt_date
from transactions.events import transactions_event
from transactions.methods import method_kind
from transactions.models import AccountBlock, RetryAttempt, RetryPolicy, Status, Transaction, TransactionType
from transactions.records import held_line
from transactions.return_codes import REINITIATION_CODES
from transactions.state import Actor
from vault.errors import ApiError

RUN_RETRIES = Actor.command("run_retries")
OPT_OUT = "none"  # a charge's (or a schedule's) "retryPolicy": "none"
State = RetryAttempt.State
# Refunds that gave (or will give) money back: the debit is not re-presented over them.
_LIVE_REFUND = (Status.PENDING, Status.HELD, Status.PROCESSING, Status.SETTLED)


class Reason:
    """Why an attempt is not made (`retry.reason`)."""

    WINDOW_CLOSED = "window_closed"
    COMPANY_SUSPENDED = "company_suspended"
    METHOD_BLOCKED = "method_blocked"
    ACCOUNT_BLOCKED = "account_blocked"
    MANDATE_REVOKED = "mandate_revoked"
    ORIGINAL_REFUNDED = "original_refunded"
    ORIGINAL_REVERSED = "original_reversed"
    RETRIED_MANUALLY = "retried_manually"


@dataclass
class RetryAnnouncements:
    """The events a chunk of returns owes, sent after the chunk's transaction.returned events."""

    by_type: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))

    def send(self) -> None:
        for type, ids in self.by_type.items():
            transactions_event(ids, type)


def _mandate_revoked(returned: Transaction, original: Transaction) -> bool:
    """Whether the mandate the debit went under (CONTRACT 14) was revoked since: the first presentment names it, a
    re-presentment may too. No query for a debit that names none."""
    mandate_ids = {returned.mandate_id, original.mandate_id} - {None}
    return bool(mandate_ids) and Mandate.objects.filter(pk__in=mandate_ids, status=Mandate.Status.REVOKED).exists()


def retry_obstacle(returned: Transaction, original: Transaction) -> str | None:
    """Why the next presentment of `returned` may not be made now, or None. The charge itself re-checks the account
    (a block placed meanwhile is its 409), so these are what the retry route would not refuse."""
    if returned.company.is_suspended:
        return Reason.COMPANY_SUSPENDED
    method = returned.payment_method
    if method is not None and method.blocked_at is not None:
        return Reason.METHOD_BLOCKED
    if AccountBlock.objects.filter(
        company_id=returned.company_id,
        account_number_hash=returned.account_number_hash,
        routing_number=returned.routing_number,
        lifted_at__isnull=True,
    ).exists():
        return Reason.ACCOUNT_BLOCKED
    if _mandate_revoked(returned, original):
        return Reason.MANDATE_REVOKED
    if original.reversed_at is not None or returned.reversed_at is not None:
        return Reason.ORIGINAL_REVERSED
    if Transaction.objects.filter(refund_of_id__in={original.pk, returned.pk}, status__in=_LIVE_REFUND).exists():
        return Reason.ORIGINAL_REFUNDED
    return None


def _candidates(returned: Iterable[Transaction]) -> list[Transaction]:
    return [
        txn
        for txn in returned
        if txn.return_code in REINITIATION_CODES
        and txn.type == TransactionType.DEBIT
        and method_kind(txn.method).returnable
        and txn.account_validation_id is None
        and txn.retry_policy != OPT_OUT
    ]


def retries_schedule(returned: Sequence[Transaction], *, at: datetime) -> RetryAnnouncements:
    """The next presentment of each debit just returned R01/R09 whose company's policy is on: scheduled, skipped past
    day 180, or cancelled at once when it could not be made. Written before the returns' events, which show it; its
    own events go after them (RetryAnnouncements.send). No query unless a return is R01/R09."""
    announcements = RetryAnnouncements()
    candidates = _candidates(returned)
    if not candidates:
        return announcements
    policies = {
        policy.company_id: policy
        for policy in RetryPolicy.objects.filter(company_id__in={txn.company_id for txn in candidates}, enabled=True)
    }
    candidates = [txn for txn in candidates if txn.company_id in policies]
    if not candidates:
        return announcements
    original_ids = {txn.retry_of_id or txn.pk for txn in candidates}
    originals = Transaction.objects.select_related("company").in_bulk(original_ids)
    made_of = {
        original_id: (count, last)
        for original_id, count, last in Transaction.objects.filter(retry_of_id__in=original_ids)
        .values("retry_of_id")
        .annotate(n=Count("pk"), last=Max("pk"))
        .values_list("retry_of_id", "n", "last")
    }
    returned_on = calendar.eastern_now(at).date()
    attempts = []
    for txn in candidates:
        original = originals[txn.retry_of_id or txn.pk]
        made, last = made_of.get(original.pk, (0, original.pk))
        if original.retry_policy == OPT_OUT or txn.pk != last:  # only the latest presentment is re-presented
            continue
        policy = policies[txn.company_id]
        if made + 1 > min(MAX_RETRIES, policy.attempts):
            announcements.by_type[EventType.TRANSACTION_RETRIES_EXHAUSTED].append(txn.pk)
            continue
        attempt = _attempt_planned(txn, original, number=made + 1, day=next_attempt_date(policy, returned_on), at=at)
        attempts.append(attempt)
        announcements.by_type[_ANNOUNCED[attempt.state]].append(txn.pk)
    RetryAttempt.objects.bulk_create(attempts)
    return announcements


_ANNOUNCED = {
    State.SCHEDULED: EventType.TRANSACTION_RETRY_SCHEDULED,
    State.SKIPPED: EventType.TRANSACTION_RETRIES_EXHAUSTED,
    State.CANCELLED: EventType.TRANSACTION_RETRY_CANCELLED,
}


def _attempt_planned(txn: Transaction, original: Transaction, *, number: int, day: date, at: datetime) -> RetryAttempt:
    state, reason = State.SCHEDULED, ""
    if day > original.effective_date + RETRY_WINDOW:
        state, reason = State.SKIPPED, Reason.WINDOW_CLOSED  # never moved earlier (CONTRACT 15)
    else:
        obstacle = retry_obstacle(txn, original)
        if obstacle is not None:
            state, reason = State.CANCELLED, obstacle
    return RetryAttempt(
        company_id=txn.company_id,
        original=original,
        returned=txn,
        number=number,
        scheduled_for=day,
        state=state,
        reason=reason,
        created_at=at,
        updated_at=at,
    )


def retry_attempts_close(attempts: Iterable[RetryAttempt], *, state: str, reason: str, at: datetime) -> int:
    """Scheduled attempts cancelled or skipped (compare-and-set: one already closed or made is left), announced."""
    ids = [attempt.pk for attempt in attempts]
    returned_ids = list(
        RetryAttempt.objects.filter(pk__in=ids, state=State.SCHEDULED).values_list("returned_id", flat=True)
    )
    closed = RetryAttempt.objects.filter(pk__in=ids, state=State.SCHEDULED).update(
        state=state, reason=reason, updated_at=at
    )
    if returned_ids:
        transactions_event(
            returned_ids,
            EventType.TRANSACTION_RETRIES_EXHAUSTED
            if state == State.SKIPPED
            else EventType.TRANSACTION_RETRY_CANCELLED,
        )
    return closed


@dataclass
class RetryRun:
    created: int = 0
    cancelled: int = 0
    skipped: int = 0
    held: list[dict] = field(default_factory=list)  # the debits it created HELD, each with its hold's code and reason

    def as_json(self) -> dict:
        return {"created": self.created, "cancelled": self.cancelled, "skipped": self.skipped, "held": self.held}


def _attempt_make(attempt: RetryAttempt, *, at: datetime, run: RetryRun) -> None:
    """One due attempt, made by the retry route's own function (which locks the first presentment, then this
    attempt, and refuses what the route refuses). A refusal closes the attempt with its code as the reason."""
    try:
        with transaction.atomic():
            made = transaction_retry(
                company=attempt.company,
                transaction_uuid=attempt.returned.uuid,
                now=at,
                actor=RUN_RETRIES,
                attempt_id=attempt.pk,
            )
    except ApiError as refused:
        window = refused.code == "retry_window_passed"
        with transaction.atomic():
            closed = retry_attempts_close(
                [attempt],
                state=State.SKIPPED if window else State.CANCELLED,
                reason=Reason.WINDOW_CLOSED if window else str(refused.code),
                at=at,
            )
        if window:
            run.skipped += closed
        else:
            run.cancelled += closed
        return
    run.created += made is not None
    if made is not None and (held := held_line(made.record)):
        run.held.append(held)


def retries_run(*, at: datetime, company_ids: Sequence[int] | None = None) -> RetryRun:
    """Every scheduled attempt: cancelled when it may no longer be made (checked each day, so a block, a refund or a
    suspension cancels it within a day), else made when its day has come. Safe to run twice at once: an attempt is
    made under its first presentment's lock and its own, once. `company_ids`: those only (the sandbox clock)."""
    run = RetryRun()
    today = calendar.eastern_now(at).date()
    scheduled = RetryAttempt.objects.filter(state=State.SCHEDULED)
    if company_ids is not None:
        scheduled = scheduled.filter(company_id__in=company_ids)
    scheduled = scheduled.select_related("company", "original", "returned__payment_method", "returned__company")
    for attempt in scheduled.order_by("scheduled_for", "pk").iterator(chunk_size=500):
        obstacle = retry_obstacle(attempt.returned, attempt.original)
        if obstacle is not None:
            with transaction.atomic():
                run.cancelled += retry_attempts_close([attempt], state=State.CANCELLED, reason=obstacle, at=at)
        elif attempt.scheduled_for <= today:
            _attempt_make(attempt, at=at, run=run)
    return run
