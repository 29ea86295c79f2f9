"""Releasing HELD transactions (risk holds): each goes on as an unheld charge would have (ACH and RCC Pending
for the next `originate`, RTP settled at once, a card authorised or declined). A debit whose mandate is no longer
active is not released but voided (CONTRACT 14: its revocation voids it at once, this is the second line)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID

from django.db import transaction

from transactions.ach.recheck import mandates_stopped
from transactions.charges.services import accepted_charge_resume
from transactions.models import Status, Transaction, TransactionHold
from transactions.risk.account_validation import HOLD_CODE as VALIDATION_HOLD_CODE
from transactions.state import Actor, Event, transaction_lock, transition

RELEASE_HOLDS = Actor.command("release_holds")
VALIDATION_HOLD_REASON = "held for account validation: its validation releases or declines it"


@dataclass
class ReleaseResult:
    released: list[str] = field(default_factory=list)
    not_released: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"released": len(self.released), "notReleased": self.not_released}


@transaction.atomic
def transaction_hold_release(*, txn: Transaction, actor: Actor, at: datetime, reason: str = "") -> bool:
    """HELD -> Pending, then processed as an unheld charge; the hold gets its released_at. The trail records
    `reason` (an operator's), else the hold's own reason. False (nothing changed) for any other status."""
    locked = transaction_lock(Transaction.objects.filter(pk=txn.pk, status=Status.HELD)).first()
    if locked is None:
        return False
    hold = TransactionHold.objects.select_for_update().filter(transaction=locked).first()
    if hold is not None and hold.hold_code == VALIDATION_HOLD_CODE:
        return False  # its account validation releases or declines it (transactions.risk.account_validation)
    stopped = mandates_stopped([locked.pk]).get(locked.pk)
    if stopped is not None:
        transition(
            locked, Event.MANDATE_REVOKED, actor=actor, at=at, reason=stopped, failure_reason=stopped, voided_at=at
        )
        txn.refresh_from_db(fields=["status", "failure_reason"])
        return False
    if hold is None:
        hold = TransactionHold(
            company_id=locked.company_id,
            transaction=locked,
            hold_code="OPS",
            hold_reason="Released by an operator without a recorded hold",
            held_at=at,
        )
    hold.released_at = at
    hold.save()
    transition(locked, Event.RELEASED, actor=actor, at=at, reason=reason or hold.hold_reason)
    accepted_charge_resume(txn=locked, actor=actor, at=at)
    txn.refresh_from_db(fields=["status"])
    return True


def holds_release(*, uuids: Iterable[UUID], at: datetime, actor: Actor = RELEASE_HOLDS) -> ReleaseResult:
    result = ReleaseResult()
    wanted = list(dict.fromkeys(uuids))
    found = {
        txn.uuid: txn
        for txn in Transaction.objects.filter(uuid__in=wanted).only("pk", "uuid", "status", "failure_reason")
    }
    for uuid in wanted:
        txn = found.get(uuid)
        if txn is None:
            result.not_released.append({"uuid": str(uuid), "reason": "not found"})
        elif transaction_hold_release(txn=txn, actor=actor, at=at):
            result.released.append(str(uuid))
        elif txn.status == Status.VOIDED:
            result.not_released.append({"uuid": str(uuid), "reason": f"voided instead: {txn.failure_reason}"})
        else:
            status = Transaction.objects.filter(pk=txn.pk).values_list("status", flat=True).first()
            held_for_validation = TransactionHold.objects.filter(
                transaction_id=txn.pk, hold_code=VALIDATION_HOLD_CODE, released_at__isnull=True
            ).exists()
            reason = VALIDATION_HOLD_REASON if status == Status.HELD and held_for_validation else None
            result.not_released.append({"uuid": str(uuid), "reason": reason or f"status is {status}, not HELD"})
    return result
