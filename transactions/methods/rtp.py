"""RTP: a real-time payment from or to a bank account. It settles when it is accepted: no batch, no window."""

from __future__ import annotations

from datetime import datetime
from uuid import uuid4

from django.db.models import F

from transactions import calendar
from transactions.methods.base import Outcome, PaymentMethodKind
from transactions.models import Settlement, Transaction
from transactions.rules import signed_amount


def real_time_settle(*, txn: Transaction, now: datetime) -> None:
    settlement, _ = Settlement.objects.get_or_create(
        company=txn.company,
        kind=Settlement.Kind.REGULAR,
        settlement_date=calendar.eastern_now(now).date(),
        defaults={"processed_at": now},
    )
    signed = signed_amount(txn.type, txn.amount)
    Settlement.objects.filter(pk=settlement.pk).update(
        transaction_count=F("transaction_count") + 1, net_amount=F("net_amount") + signed
    )
    txn.settlement = settlement
    txn.expected_to_settle_at = now
    txn.rtp_transaction_id = f"RTP{uuid4().hex.upper()}"


class Rtp(PaymentMethodKind):
    code = "RTP"
    settles_at_birth = True
    writes_when_accepted = True

    def accept(self, txn: Transaction, now: datetime) -> Outcome | None:
        if txn.settlement_id is not None:
            return None
        real_time_settle(txn=txn, now=now)
        return Outcome.SETTLED

    def reversal_accept(self, credit: Transaction, at: datetime) -> Outcome | None:
        credit.effective_date = calendar.eastern_now(at).date()
        real_time_settle(txn=credit, now=at)
        return Outcome.SETTLED


RTP = Rtp()
