"""Operator handling of problem transactions: reject (not sent), restore (back to Pending and processed as a
new charge would be), acknowledge."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from events.types import EventType
from transactions.events import transaction_event, transaction_resumed_event
from transactions.models import Status, Transaction, TransactionException
from transactions.services import PROCESSED_FIELDS, accepted_charge_process
from vault.errors import Conflict

# Only what has not gone to the bank yet can be rejected.
REJECTABLE = (Status.PENDING, Status.HELD)
DEFAULT_REJECT_REASON = "Rejected by operator"


def _exception_for(txn: Transaction) -> TransactionException:
    record = TransactionException.objects.select_for_update().filter(transaction=txn).first()
    return record or TransactionException(company_id=txn.company_id, transaction=txn)


def _locked(txn: Transaction) -> Transaction:
    return Transaction.objects.select_for_update().get(pk=txn.pk)


@transaction.atomic
def transaction_reject(*, txn: Transaction, reason: str, at: datetime) -> Transaction:
    locked = _locked(txn)
    if locked.status not in REJECTABLE:
        raise Conflict(f"a {locked.status} transaction cannot be rejected", code="invalid_status")
    record = _exception_for(locked)
    record.reject_reason = (reason or DEFAULT_REJECT_REASON)[:255]
    record.rejected_at = at
    record.restored_at = None
    record.save()
    locked.status = Status.REJECTED
    locked.save(update_fields=["status"])
    transaction_event(locked, EventType.TRANSACTION_REJECTED)
    return locked


@transaction.atomic
def transaction_restore(*, txn: Transaction, at: datetime) -> Transaction:
    locked = _locked(txn)
    if locked.status != Status.REJECTED:
        raise Conflict(f"a {locked.status} transaction cannot be restored", code="invalid_status")
    record = _exception_for(locked)
    record.restored_at = at
    record.save()
    locked.status = Status.PENDING
    accepted_charge_process(txn=locked, now=at)
    locked.save(update_fields=PROCESSED_FIELDS)
    transaction_resumed_event(locked, EventType.TRANSACTION_RESTORED)
    return locked


@transaction.atomic
def transaction_acknowledge(*, txn: Transaction, at: datetime) -> bool:
    """Marks the exception seen; True when this call did it, False when it was already acknowledged."""
    locked = _locked(txn)
    record = _exception_for(locked)
    if record.acknowledged_at is not None:
        return False
    record.acknowledged_at = at
    record.save()
    return True
