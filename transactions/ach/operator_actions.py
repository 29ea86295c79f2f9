"""Operator handling of problem transactions: reject (not sent), restore (back to Pending and processed as a
new charge would be), acknowledge."""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from transactions.charges.services import accepted_charge_resume
from transactions.models import Transaction, TransactionException
from transactions.state import Actor, Event, move_for, transaction_lock, transition

DEFAULT_REJECT_REASON = "Rejected by operator"


def _exception_for(txn: Transaction) -> TransactionException:
    record = TransactionException.objects.select_for_update().filter(transaction=txn).first()
    return record or TransactionException(company_id=txn.company_id, transaction=txn)


def _transaction_locked(txn: Transaction) -> Transaction:
    return transaction_lock(Transaction.objects.filter(pk=txn.pk)).get()


@transaction.atomic
def transaction_reject(*, txn: Transaction, reason: str, actor: Actor, at: datetime) -> Transaction:
    locked = _transaction_locked(txn)
    move_for(locked, Event.REJECTED, actor)  # refused before the exception record is touched
    record = _exception_for(locked)
    record.reject_reason = (reason or DEFAULT_REJECT_REASON)[:255]
    record.rejected_at = at
    record.restored_at = None
    record.save()
    transition(locked, Event.REJECTED, actor=actor, at=at, reason=record.reject_reason)
    return locked


@transaction.atomic
def transaction_restore(*, txn: Transaction, actor: Actor, at: datetime, reason: str = "") -> Transaction:
    locked = _transaction_locked(txn)
    move_for(locked, Event.RESTORED, actor)
    record = _exception_for(locked)
    record.restored_at = at
    record.save()
    transition(locked, Event.RESTORED, actor=actor, at=at, reason=reason)
    accepted_charge_resume(txn=locked, actor=actor, at=at)
    return locked


@transaction.atomic
def transaction_acknowledge(*, txn: Transaction, actor: Actor, at: datetime) -> bool:
    """Marks the exception seen; True when this call did it, False when it was already acknowledged."""
    locked = _transaction_locked(txn)
    record = _exception_for(locked)
    if record.acknowledged_at is not None:
        return False
    record.acknowledged_at = at
    record.save()
    transition(locked, Event.ACKNOWLEDGED, actor=actor, at=at)
    return True
