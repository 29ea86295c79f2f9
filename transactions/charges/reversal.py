"""Reversal and refund of a Settled debit (CONTRACT 12): two different things.

A **reversal** corrects an erroneous entry (Nacha: duplicate, wrong receiver, wrong amount, wrong date): the
offsetting credit carries the original's SEC code and amount under the Company Entry Description `REVERSAL`, and
may go out only until 5 banking days after the original's settlement date. The original becomes Reversed; both
rows name each other.

A **refund** gives money back for a good entry: a new credit of at most what is left of the original (its amount
less earlier refunds), sent as an ACH `PPD` (consumer) or `CCD` (organization) credit with the description
`REFUND`; the original stays Settled and the refund points at it (`refund_of`). An RTP charge is refunded by an RTP
credit, a card sale by a card credit.

Together they never credit more than the debit (CONTRACT 12): a reversal is refused while a refund of the debit may
still pay (a Pending one may be voided first), and a reversed debit takes no refund. Migration 0028's trigger keeps
the same promise in the database.

Either credit pays the account as it is now: a saved method's details after any notice of change, the holder's name
a C04 corrected included (for a one-off charge, the notice on the entry itself), and never a method that was
blocked (R02-R04) since. The original's row is locked first, so two reversals, two refunds, or a refund and a
reversal of one debit go one after the other."""

from __future__ import annotations

from datetime import date, datetime
from uuid import UUID

from django.db import transaction
from django.db.models import QuerySet, Sum, TextChoices

from accounts.models import Company
from customers.models import Customer
from payments.errors import PaymentMethodBlocked
from payments.services import payment_methods_lock
from transactions import calendar
from transactions.calendar import company_cutoff
from transactions.effective_dates import effective_date_resolve
from transactions.methods import ACH, method_kind, sec_codes
from transactions.models import ChangeNotice, Status, Transaction, TransactionType
from transactions.return_codes import Corrected
from transactions.selectors import TransactionNotFound
from transactions.state import Actor, Event, move_for, transaction_create, transaction_lock, transition
from vault.crypto import account_number_hash, unpadded_account_hash
from vault.error_codes import ErrorCode
from vault.errors import Conflict

PAYMENT_METHOD_BLOCKED = "payment method is blocked"
REVERSAL_DESCRIPTION = "REVERSAL"
REFUND_DESCRIPTION = "REFUND"
REVERSAL_WINDOW_BANKING_DAYS = 5
COPIED_FIELDS = ("customer_id", "payment_method_id")
BANK_FIELDS = (
    "account_type",
    "account_number",
    "account_number_hash",
    "unpadded_account_hash",
    "account_last_four",
    "routing_number",
)
CARD_FIELDS = ("card_first_six", "card_last_four", "card_masked", "card_expiration")
# A refund that did not move money (never sent, or sent back) leaves its amount refundable again.
REFUNDS_NOT_PAID = (Status.VOIDED, Status.DECLINED, Status.REJECTED, Status.RETURNED)


class ReversalReason(TextChoices):
    """The erroneous entries Nacha lets an originator reverse."""

    DUPLICATE = "duplicate"
    WRONG_RECEIVER = "wrong_receiver"
    WRONG_AMOUNT = "wrong_amount"
    WRONG_DATE = "wrong_date"


def _payee(original: Transaction) -> dict:
    """Where the credit goes, and in whose name: the card charged, or the bank account as it is now."""
    if method_kind(original.method).pays_by_card:
        return {name: getattr(original, name) for name in ("name", *CARD_FIELDS)}
    if original.payment_method_id is None:
        return _one_off_payee(original)
    method = payment_methods_lock(ids=[original.payment_method_id])[original.payment_method_id]
    if method.blocked_at is not None:
        raise PaymentMethodBlocked(PAYMENT_METHOD_BLOCKED, status=409)
    # The saved method carries every notice of change applied since the debit, a C04's name too.
    return {
        "name": method.corrected_name or original.name,
        "account_type": method.account_type,
        "account_number": method.account_number,
        "account_number_hash": account_number_hash(method.account_number),
        "unpadded_account_hash": unpadded_account_hash(method.account_number),
        "account_last_four": method.account_number[-4:],
        "routing_number": method.routing_number,
    }


def _one_off_payee(original: Transaction) -> dict:
    """A one-off charge has no saved method to correct: the notice of change on the entry itself says where the
    account is now."""
    payee = {name: getattr(original, name) for name in ("name", *BANK_FIELDS)}
    notice = ChangeNotice.objects.filter(transaction=original).first()
    if notice is None:
        return payee
    payee["name"] = notice.new_value.get(Corrected.NAME.value, payee["name"])
    payee["routing_number"] = notice.new_value.get(Corrected.ROUTING.value, payee["routing_number"])
    payee["account_type"] = notice.new_value.get(Corrected.ACCOUNT_TYPE.value, payee["account_type"])
    if notice.corrected_account_number:
        payee["account_number"] = notice.corrected_account_number
        payee["account_number_hash"] = account_number_hash(notice.corrected_account_number)
        payee["unpadded_account_hash"] = unpadded_account_hash(notice.corrected_account_number)
        payee["account_last_four"] = notice.corrected_account_number[-4:]
    return payee


def _locked_original(company: Company, transaction_uuid: UUID) -> Transaction:
    # An account validation's entry is the service's, not the merchant's: reversing or refunding a micro-deposit
    # would show its amount in the new credit (CONTRACT 12).
    mine = Transaction.objects.filter(company=company, uuid=transaction_uuid, account_validation__isnull=True)
    original = transaction_lock(mine).first()
    if original is None:
        raise TransactionNotFound()
    original.company = company  # the caller's row, its settings read with it: no query for either
    return original


def _paying_refunds(original: Transaction) -> QuerySet[Transaction]:
    """The refunds of `original` that paid, or may still pay, the payer."""
    return Transaction.objects.filter(company_id=original.company_id, refund_of=original).exclude(
        status__in=REFUNDS_NOT_PAID
    )


def _no_refund_paying(original: Transaction) -> None:
    """A reversal credits the whole amount: on top of a refund it would pay the payer more than the debit."""
    refund = _paying_refunds(original).order_by("pk").values_list("uuid", "status").first()
    if refund is None:
        return
    refund_uuid, status = refund
    raise Conflict(
        f"a refund of this debit is {status} ({refund_uuid}): a reversal as well would credit the payer more than "
        "the debit; a Pending refund may be voided first (POST /transactions/{uuid}/void)",
        code=ErrorCode.REFUND_EXISTS,
        field="transactionUuid",
        data={"refundUuid": str(refund_uuid), "refundStatus": status},
    )


def _credit(original: Transaction, *, method: str, amount: int, at: datetime, **fields) -> Transaction:
    return Transaction(
        company=original.company,
        type=TransactionType.CREDIT,
        method=method,
        amount=amount,
        # As a charge's (the next window's day for RTP, the banking day after it for an ACH entry), so the credit
        # shows the day it will settle before `originate` batches it.
        effective_date=effective_date_resolve(
            requested=None, now=at, cutoff=company_cutoff(original.company), kind=method_kind(method)
        ),
        created_at=at,
        **{name: getattr(original, name) for name in COPIED_FIELDS},
        **_payee(original),
        **fields,
    )


def _born(credit: Transaction, at: datetime) -> str:
    """An RTP credit settles at once, a card credit is authorised for the next `settle`, an ACH one waits."""
    return Status.SETTLED if method_kind(credit.method).reversal_accept(credit, at) else Status.PENDING


def settlement_date_of(txn: Transaction) -> date:
    """The day the original's funds settled: its settlement's day, else its batch's effective date."""
    if txn.settlement_id is not None:
        return txn.settlement.settlement_date
    return txn.batch.effective_date if txn.batch_id is not None else txn.effective_date


def reversal_deadline(original: Transaction) -> date:
    """The last processing day a reversal of `original` may go out on (Nacha: 5 banking days after settlement)."""
    return calendar.add_business_days(settlement_date_of(original), REVERSAL_WINDOW_BANKING_DAYS)


@transaction.atomic
def transaction_reverse(
    *, company: Company, transaction_uuid: UUID, reason: str, actor: Actor, at: datetime
) -> Transaction:
    original = _locked_original(company, transaction_uuid)
    move_for(original, Event.REVERSED, actor)  # refused before anything is written
    _no_refund_paying(original)
    kind = method_kind(original.method)
    if kind.in_nacha_file:
        deadline = reversal_deadline(original)
        if calendar.next_processing_day(at, company_cutoff(original.company)) > deadline:
            raise Conflict(
                f"a reversal must go out within {REVERSAL_WINDOW_BANKING_DAYS} banking days of the original's "
                f"settlement date ({settlement_date_of(original)}); the last day was {deadline}: send a refund "
                "(POST /transactions/{uuid}/refund) instead",
                code=ErrorCode.REVERSAL_WINDOW_CLOSED,
                field="transactionUuid",
            )
    credit = _credit(
        original,
        method=original.method,
        amount=original.amount,
        at=at,
        standard_entry_class_code=original.standard_entry_class_code,
        entry_description=REVERSAL_DESCRIPTION if kind.in_nacha_file else None,
        description=f"Reversal of {original.uuid} ({reason})",
        reversal_uuid=original.uuid,
    )
    born = _born(credit, at)
    transition(original, Event.REVERSED, actor=actor, at=at, reason=reason, reversed_at=at, reversal_uuid=credit.uuid)
    transaction_create(credit, status=born, actor=actor)
    return credit


def refund_sec_code(customer: Customer | None) -> str:
    """A refund is a credit to the payer's account: CCD for an organization, PPD for a consumer (WEB and TEL carry
    no merchant's refund)."""
    return sec_codes.default_sec_code(type=TransactionType.CREDIT, holder=sec_codes.account_holder(customer))


def refundable_amount(original: Transaction) -> int:
    refunded = _paying_refunds(original).aggregate(total=Sum("amount"))["total"]
    return original.amount - (refunded or 0)


class RefundExceedsOriginal(Conflict):
    code = ErrorCode.REFUND_EXCEEDS_ORIGINAL

    def __init__(self, message: str) -> None:
        super().__init__(message, field="amount")


@transaction.atomic
def transaction_refund(
    *, company: Company, transaction_uuid: UUID, amount: int | None, actor: Actor, at: datetime
) -> Transaction:
    original = _locked_original(company, transaction_uuid)
    if (original.status, original.type) != (Status.SETTLED, TransactionType.DEBIT):
        raise Conflict(
            f"only a Settled Debit can be refunded; this is a {original.status} {original.type}",
            code=ErrorCode.NOT_REFUNDABLE,
            field="transactionUuid",
        )
    left = refundable_amount(original)
    if left <= 0:
        raise RefundExceedsOriginal(f"the original's {original.amount} cents are refunded already")
    if amount is not None and amount > left:
        raise RefundExceedsOriginal(
            f"amount {amount} is more than the {left} cents left to refund of {original.amount}"
        )
    kind = method_kind(original.method)
    # An entry of a NACHA file is refunded by an ACH credit, whatever it went as (an RCC was a TEL debit).
    credit = _credit(
        original,
        method=ACH.code if kind.in_nacha_file else original.method,
        amount=amount or left,
        at=at,
        standard_entry_class_code=refund_sec_code(original.customer) if kind.in_nacha_file else "",
        entry_description=REFUND_DESCRIPTION if kind.in_nacha_file else None,
        description=f"Refund of {original.uuid}",
        refund_of=original,
    )
    return transaction_create(credit, status=_born(credit, at), actor=actor)
