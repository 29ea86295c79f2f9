"""Reversal of a Settled debit: an offsetting Credit, linked both ways, that moves money the way the original
did. ACH and RCC credits go out in the next `originate`; an RTP credit settles at once; a card refund is
authorised now and captured by the next `settle`.

A bank reversal pays the account as it is now: a saved method's details after any notice of change (for a
one-off charge, the notice on the entry itself), and never a method that was blocked (R02-R04) since."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from django.db import transaction

from accounts.models import Company
from payments.models import PaymentMethod
from transactions import calendar
from transactions.lifecycle.return_codes import Corrected
from transactions.methods import method_kind
from transactions.models import ChangeNotice, Status, Transaction, TransactionType
from transactions.state import Actor, Event, move_for, transaction_create, transaction_lock, transition
from vault.crypto import account_number_hash
from vault.errors import NotFound, PaymentMethodBlocked

PAYMENT_METHOD_BLOCKED = "payment method is blocked"
COPIED_FIELDS = (
    "customer_id",
    "payment_method_id",
    "method",
    "amount",
    "standard_entry_class_code",
    "name",
)
BANK_FIELDS = ("account_type", "account_number", "account_number_hash", "account_last_four", "routing_number")
CARD_FIELDS = ("card_first_six", "card_last_four", "card_masked", "card_expiration")


def _payee(original: Transaction) -> dict:
    """Where the credit goes: the card charged, or the bank account as it is now."""
    if method_kind(original.method).pays_by_card:
        return {name: getattr(original, name) for name in CARD_FIELDS}
    if original.payment_method_id is None:
        return _one_off_payee(original)
    method = PaymentMethod.objects.select_for_update().get(pk=original.payment_method_id)
    if method.blocked_at is not None:
        raise PaymentMethodBlocked(PAYMENT_METHOD_BLOCKED, status=409)
    # The saved method carries every notice of change applied since the debit.
    return {
        "account_type": method.account_type,
        "account_number": method.account_number,
        "account_number_hash": account_number_hash(method.account_number),
        "account_last_four": method.account_number[-4:],
        "routing_number": method.routing_number,
    }


def _one_off_payee(original: Transaction) -> dict:
    """A one-off charge has no saved method to correct: the notice of change on the entry itself says where the
    account is now."""
    payee = {name: getattr(original, name) for name in BANK_FIELDS}
    notice = ChangeNotice.objects.filter(transaction=original).first()
    if notice is None:
        return payee
    payee["routing_number"] = notice.new_value.get(Corrected.ROUTING.value, payee["routing_number"])
    payee["account_type"] = notice.new_value.get(Corrected.ACCOUNT_TYPE.value, payee["account_type"])
    if notice.corrected_account_number:
        payee["account_number"] = notice.corrected_account_number
        payee["account_number_hash"] = account_number_hash(notice.corrected_account_number)
        payee["account_last_four"] = notice.corrected_account_number[-4:]
    return payee


@transaction.atomic
def transaction_reverse(*, company: Company, transaction_uuid: UUID, actor: Actor, at: datetime) -> Transaction:
    # An account validation's entry is the service's, not the merchant's: reversing a micro-deposit would show
    # its amount in the new credit (CONTRACT 12).
    mine = Transaction.objects.filter(company=company, uuid=transaction_uuid, account_validation__isnull=True)
    original = transaction_lock(mine).first()
    if original is None:
        raise NotFound("Transaction not found")
    move_for(original, Event.REVERSED, actor)  # refused before anything is written
    credit = Transaction(
        company=company,
        type=TransactionType.CREDIT,
        effective_date=calendar.next_processing_day(at, company.cutoff_time),
        created_at=at,
        description=f"Reversal of {original.uuid}",
        reversal_uuid=original.uuid,
        **{name: getattr(original, name) for name in COPIED_FIELDS},
        **_payee(original),
    )
    born = Status.SETTLED if method_kind(original.method).reversal_accept(credit, at) else Status.PENDING
    transition(original, Event.REVERSED, actor=actor, at=at, reversed_at=at, reversal_uuid=credit.uuid)
    transaction_create(credit, status=born, actor=actor)
    return credit
