"""Re-presenting a returned debit (Nacha 2.12.4): only after R01 or R09, at most twice, within 180 days of the
original entry's settlement date, with the same payer, amount and SEC code and Company Entry Description
`RETRY PYMT`. Every other return code is refused with the reason."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from django.db import transaction

from accounts.models import Company
from events.types import EventType
from idempotency.services import ChargeResult
from mandates.models import Mandate
from transactions import calendar
from transactions.charges.services import ChargeRequest, transaction_charge
from transactions.errors import NotRetryable
from transactions.events import transactions_event
from transactions.methods import method_kind
from transactions.models import RetryAttempt, Status, Transaction, TransactionType
from transactions.return_codes import REINITIATION_CODES, RETURN_CODES
from transactions.selectors import TransactionNotFound
from transactions.state import Actor
from vault.error_codes import ErrorCode

MAX_RETRIES = 2  # three presentments in all
RETRY_WINDOW = timedelta(days=180)
RETRY_ENTRY_DESCRIPTION = "RETRY PYMT"
# Why the codes people most often try to re-present may not be; any other code gets the generic reason.
REFUSALS: dict[str, str] = {
    "R07": "R07 (authorization revoked): a debit is never re-presented after R07; a new authorization is needed",
    "R08": "R08 (payment stopped): re-presented only with a new authorization from the receiver, not by retry",
    "R10": "R10 (not authorized): a debit is never re-presented after R10",
}


def _refusal(code: str) -> str:
    if code in REFUSALS:
        return REFUSALS[code]
    return (
        f"{code} ({RETURN_CODES[code].reason}): only R01 and R09 returns may be re-presented; "
        "this one needs its cause remedied and a new charge"
    )


def transaction_retry(
    *, company: Company, transaction_uuid: UUID, now: datetime, actor: Actor, attempt_id: int | None = None
) -> ChargeResult | None:
    """A new debit re-presenting the returned one. The first presentment's row is locked, so two retries of the
    same return go one after the other and the second sees the first. `attempt_id`: the scheduled attempt
    `run_retries` makes (CONTRACT 15), locked after the first presentment; None when another run made or closed it
    meanwhile. A manual retry cancels the attempt its return had scheduled: the count is one."""
    with transaction.atomic():
        returned = (
            # Not an account validation's entry: re-presenting a micro-entry would show its amount (CONTRACT 12).
            Transaction.objects.filter(company=company, uuid=transaction_uuid, account_validation__isnull=True)
            .select_related("return_entry")
            .defer("account_number")
            .first()
        )
        if returned is None:
            raise TransactionNotFound()
        original = (
            Transaction.objects.select_for_update()
            .filter(company=company, pk=returned.retry_of_id or returned.pk)
            .get()
        )
        attempt = None if attempt_id is None else RetryAttempt.objects.select_for_update().get(pk=attempt_id)
        if attempt is not None and attempt.state != RetryAttempt.State.SCHEDULED:
            return None
        if returned.type != TransactionType.DEBIT or not method_kind(returned.method).returnable:
            raise NotRetryable("only a returned ACH or RCC debit can be re-presented", code=ErrorCode.NOT_RETRYABLE)
        entry = getattr(returned, "return_entry", None)
        if returned.status != Status.RETURNED or entry is None:
            raise NotRetryable(
                f"only a Returned debit can be re-presented; this one is {returned.status}", code=ErrorCode.NOT_RETURNED
            )
        if entry.return_code not in REINITIATION_CODES:
            raise NotRetryable(_refusal(entry.return_code), code=ErrorCode.RETURN_CODE_NOT_RETRYABLE)
        presentments = list(original.retries.order_by("pk").values_list("pk", flat=True))
        if (presentments[-1] if presentments else original.pk) != returned.pk:
            raise NotRetryable("this return was already re-presented", code=ErrorCode.ALREADY_RETRIED)
        if len(presentments) >= MAX_RETRIES:
            raise NotRetryable(
                f"a returned debit may be re-presented at most {MAX_RETRIES} times", code=ErrorCode.RETRY_LIMIT_REACHED
            )
        if calendar.eastern_now(now).date() > original.effective_date + RETRY_WINDOW:
            raise NotRetryable(
                "a returned debit may be re-presented only within 180 days of the original's settlement date",
                code=ErrorCode.RETRY_WINDOW_PASSED,
            )
        made = _presentment_make(company, returned, actor=actor, now=now, retry_of=original)
        _attempt_settled(returned, attempt, made, now=now)
        return made


def _attempt_settled(returned: Transaction, attempt: RetryAttempt | None, made: ChargeResult, *, now: datetime) -> None:
    """The attempt made (`run_retries`), or the one the manual retry stands in for, cancelled and announced."""
    if attempt is not None:
        attempt.state, attempt.updated_at = RetryAttempt.State.CREATED, now
        attempt.presentment_id = Transaction.objects.values_list("pk", flat=True).get(uuid=made.record["uuid"])
        attempt.save(update_fields=["state", "presentment", "updated_at"])
    elif RetryAttempt.objects.filter(returned=returned, state=RetryAttempt.State.SCHEDULED).update(
        state=RetryAttempt.State.CANCELLED, reason="retried_manually", updated_at=now
    ):
        transactions_event([returned.pk], EventType.TRANSACTION_RETRY_CANCELLED)


def _presentment_make(
    company: Company, returned: Transaction, *, actor: Actor, now: datetime, retry_of: Transaction
) -> ChargeResult:
    one_off = returned.payment_method_id is None
    return transaction_charge(
        ChargeRequest(
            company=company,
            method=returned.method,
            type=returned.type,
            amount=returned.amount,
            actor=actor,
            now=now,
            customer_uuid=returned.customer.uuid if returned.customer_id else None,
            payment_method_uuid=None if one_off else returned.payment_method.uuid,
            payment_details=_details_of(returned) if one_off else None,
            standard_entry_class_code=returned.standard_entry_class_code,
            external_unique_id=returned.external_unique_id,
            description=returned.description,
            retry_of=retry_of,
            entry_description=RETRY_ENTRY_DESCRIPTION,
            mandate_uuid=_mandate_uuid(retry_of),
        )
    )


def _mandate_uuid(original: Transaction) -> UUID | None:
    """The mandate the first presentment went under (CONTRACT 14): each re-presentment goes under it too, so a
    revoked one refuses the retry (409 `mandate_not_active`) as it refuses any debit."""
    if original.mandate_id is None:
        return None
    return Mandate.objects.values_list("uuid", flat=True).get(pk=original.mandate_id)


def _details_of(txn: Transaction) -> dict[str, str]:
    """A one-off charge is re-presented to the account it debited (read in full from the encrypted column)."""
    full = Transaction.objects.only("account_number").get(pk=txn.pk).account_number
    return {
        "name": txn.name,
        "account_type": txn.account_type,
        "account_number": full,
        "routing_number": txn.routing_number,
    }
