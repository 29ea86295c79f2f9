"""CRD: a card, authorised when the charge is accepted and captured by the next `settle`."""

from __future__ import annotations

from datetime import datetime

from transactions.methods.base import Outcome, PaymentMethodKind
from transactions.models import Transaction

CARD_APPROVED_CODE = "00"
CARD_EXPIRED_CODE = "54"  # ISO 8583: expired card


def card_expired(expiration: str, now: datetime) -> bool:
    """`MM/YY`: valid through the last day of that month."""
    month, year = expiration.split("/")
    return (2000 + int(year), int(month)) < (now.year, now.month)


def card_authorize(*, txn: Transaction, now: datetime) -> None:
    txn.authorized_at = now
    txn.auth_response_code = CARD_APPROVED_CODE


class Card(PaymentMethodKind):
    code = "CRD"
    pays_by_card = True
    captured_by_settle = True

    def accept(self, txn: Transaction, now: datetime) -> Outcome | None:
        if txn.authorized_at is not None:
            return None
        if card_expired(txn.card_expiration, now):
            txn.auth_response_code = CARD_EXPIRED_CODE
            txn.failure_reason = "card has expired"
            return Outcome.DECLINED
        card_authorize(txn=txn, now=now)
        return None

    def reversal_accept(self, credit: Transaction, at: datetime) -> Outcome | None:
        card_authorize(txn=credit, now=at)
        return None


CARD = Card()
