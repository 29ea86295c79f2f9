"""What `originate` re-reads of each Pending entry as it batches it (CONTRACT 12): an entry accepted days ago
goes to the account as it is now. A notice of change since then corrects the entry (a saved method's account as
the NOC left it; for a one-off charge, the latest NOC on an earlier entry to the same account), and a debit to an
account a return has blocked since, or from a saved method blocked since, is declined instead of sent; a debit whose
mandate is no longer active is voided (CONTRACT 14: its revocation voids it at once, this is the second line); a
re-presentment past day 180 of its first presentment is declined (the retry route's own limit, on the day it is
sent). Each correction and each refusal is a move of the entry's trail with its event (transaction.updated,
transaction.declined, transaction.voided), and each refusal is listed in `originate`'s output."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from mandates.models import Mandate
from payments.models import PaymentMethod
from transactions import calendar
from transactions.charges.retry import RETRY_WINDOW
from transactions.models import AccountBlock, ChangeNotice, Transaction, TransactionType
from transactions.return_codes import Corrected
from transactions.risk.account_rules import block_reason
from transactions.state import Actor, Event, transition
from vault.crypto import account_number_hash, unpadded_account_hash
from vault.db import ids_in, values_in

AccountKey = tuple[int, str, str]  # company, routing number, keyed hash of the account number


def _key(txn: Transaction) -> AccountKey:
    return txn.company_id, txn.routing_number, txn.account_number_hash


BLOCK_KEY_FIELDS = ("company_id", "routing_number", "account_number_hash", "unpadded_account_hash")


def _unpadded_key(txn: Transaction) -> AccountKey:
    """The account as the debit rules see it: its leading zeros ignored (vault.crypto.unpadded_account_hash)."""
    return txn.company_id, txn.routing_number, txn.unpadded_account_hash or txn.account_number_hash


@dataclass(frozen=True)
class Correction:
    routing_number: str
    account_type: str
    account_number: str | None  # None: the notice left the account number as it was
    why: str

    def changes(self, txn: Transaction) -> dict[str, str]:
        """The entry's fields this correction changes (none when the entry already goes to that account)."""
        wanted = (("routing_number", self.routing_number), ("account_type", self.account_type))
        changed = {name: value for name, value in wanted if getattr(txn, name) != value}
        if self.account_number is not None and account_number_hash(self.account_number) != txn.account_number_hash:
            changed |= {
                "account_number": self.account_number,
                "account_number_hash": account_number_hash(self.account_number),
                "unpadded_account_hash": unpadded_account_hash(self.account_number),
                "account_last_four": self.account_number[-4:],
            }
        return changed


def _notice_why(code: str, txn_uuid) -> str:
    return f"account corrected by notice of change {code} on {txn_uuid}"


def _saved_corrections(due: Sequence[Transaction]) -> dict[int, Correction]:
    """Saved methods carry every notice applied to them: the entries of a method a notice has touched take the
    method's account as it is now."""
    method_ids = {txn.payment_method_id for txn in due if txn.payment_method_id}
    latest: dict[int, tuple[str, object]] = {}
    notices = ChangeNotice.objects.filter(transaction__payment_method_id__in=method_ids).order_by("changed_at", "pk")
    for method_id, code, txn_uuid in notices.values_list(
        "transaction__payment_method_id", "change_code", "transaction__uuid"
    ):
        latest[method_id] = (code, txn_uuid)
    methods = PaymentMethod.objects.filter(pk__in=latest).only("routing_number", "account_type", "account_number")
    return {
        method.pk: Correction(
            method.routing_number, method.account_type, method.account_number, _notice_why(*latest[method.pk])
        )
        for method in methods
    }


def _one_off_corrections(due: Sequence[Transaction]) -> dict[AccountKey, Correction]:
    """A one-off charge has no method to correct: the latest notice on an earlier entry of the same company to the
    same account says where that account is now."""
    one_offs = [txn for txn in due if txn.payment_method_id is None]
    if not one_offs:
        return {}
    notices = (
        ChangeNotice.objects.filter(
            values_in(
                {txn.account_number_hash for txn in one_offs},
                field="transaction__account_number_hash",
                array_type="text",
            ),
            transaction__company_id__in={txn.company_id for txn in one_offs},
        )
        .select_related("transaction")
        .order_by("changed_at", "pk")
    )
    corrections: dict[AccountKey, Correction] = {}
    for notice in notices:
        old = notice.transaction
        corrections[_key(old)] = Correction(
            notice.new_value.get(Corrected.ROUTING.value, old.routing_number),
            notice.new_value.get(Corrected.ACCOUNT_TYPE.value, old.account_type),
            notice.corrected_account_number or None,
            _notice_why(notice.change_code, old.uuid),
        )
    return corrections


def _move(row, event: str, *, actor: Actor, at: datetime, reason: str, **changes) -> Transaction:
    """`transition` of one entry. Batching reads its entries as light rows (origination.DueEntry): the row is then
    read whole for its event's record, and the light row takes the status and the changes."""
    txn = row if isinstance(row, Transaction) else Transaction.objects.defer("account_number").get(pk=row.pk)
    transition(txn, event, actor=actor, at=at, reason=reason, **changes)
    if txn is not row:
        for name in ("status", *changes):
            if hasattr(type(row), name):
                setattr(row, name, getattr(txn, name))
    return txn


def _correct(due: Sequence[Transaction], *, actor: Actor, at: datetime) -> None:
    saved, one_off = _saved_corrections(due), _one_off_corrections(due)
    for txn in due:
        correction = saved.get(txn.payment_method_id) if txn.payment_method_id else one_off.get(_key(txn))
        changes = correction.changes(txn) if correction else {}
        if changes:
            _move(txn, Event.CORRECTED, actor=actor, at=at, reason=correction.why, **changes)


def mandates_stopped(ids: Sequence[int]) -> dict[int, str]:
    """Of the debits `ids`, those whose mandate is no longer active, with the reason (CONTRACT 14): one query."""
    if not ids:
        return {}
    stopped = (
        Transaction.objects.filter(ids_in(ids), mandate__isnull=False)
        .exclude(mandate__status=Mandate.Status.ACTIVE)
        .values_list("pk", "mandate__status", "mandate__revoked_reason")
    )
    return {pk: f"mandate {status}: {why}"[:255] for pk, status, why in stopped}


def retry_windows_passed(debits: Sequence[Transaction], *, at: datetime) -> dict[int, str]:
    """Re-presentments sent past day 180 of the first presentment's settlement date (Nacha 2.12.4; ACH review L4):
    the retry route checks the day it makes one, and this the day its entry is sent, which may be a day later (made
    after the cut-off) or more (future-dated, held). One query."""
    sent_on = calendar.eastern_now(at).date()
    firsts = Transaction.objects.filter(ids_in([txn.pk for txn in debits]), retry_of__isnull=False).values_list(
        "pk", "retry_of__effective_date"
    )
    return {
        pk: f"retry window passed: sent {sent_on}, more than 180 days after the first presentment settled {settled}"
        for pk, settled in firsts
        if sent_on > settled + RETRY_WINDOW
    }


def _refusals(due: Sequence[Transaction], *, at: datetime) -> dict[int, tuple[str, str]]:
    """Debits that may not go, (event, reason) each: their mandate is no longer active (voided), their account was
    blocked by a return, or their saved method was (declined)."""
    debits = [txn for txn in due if txn.type == TransactionType.DEBIT and txn.account_validation_id is None]
    if not debits:
        return {}
    refusals = {pk: (Event.MANDATE_REVOKED, why) for pk, why in mandates_stopped([txn.pk for txn in debits]).items()}
    refusals |= {
        pk: (Event.DECLINED, why) for pk, why in retry_windows_passed(debits, at=at).items() if pk not in refusals
    }
    # Keyed as the debit rules key an account: its leading zeros ignored (CONTRACT 12).
    hashes = {_unpadded_key(txn)[2] for txn in debits}
    blocks = {
        (company_id, routing, unpadded or hashed): block_reason(code, txn_uuid)
        for company_id, routing, hashed, unpadded, code, txn_uuid in AccountBlock.objects.filter(
            values_in(hashes, field="account_number_hash", array_type="text")
            | values_in(hashes, field="unpadded_account_hash", array_type="text"),
            company_id__in={txn.company_id for txn in debits},
            lifted_at__isnull=True,
        ).values_list(*BLOCK_KEY_FIELDS, "return_code", "transaction__uuid")
    }
    blocked_methods = dict(
        PaymentMethod.objects.filter(
            pk__in={txn.payment_method_id for txn in debits if txn.payment_method_id}, blocked_at__isnull=False
        ).values_list("pk", "blocked_reason")
    )
    for txn in debits:
        if txn.pk in refusals:
            continue
        if _unpadded_key(txn) in blocks:
            refusals[txn.pk] = (Event.DECLINED, blocks[_unpadded_key(txn)])
        elif txn.payment_method_id in blocked_methods:
            why = f"payment method blocked: {blocked_methods[txn.payment_method_id] or 'blocked'}"
            refusals[txn.pk] = (Event.DECLINED, why)
    return refusals


def entries_recheck(
    due: list[Transaction], *, actor: Actor, at: datetime, refused: list[dict] | None = None
) -> list[Transaction]:
    """Correct and refuse as the module says (inside the batching transaction, rows locked); the entries to send.
    Each refusal is added to `refused` ({uuid, status, reason}) for the run's output."""
    _correct(due, actor=actor, at=at)
    refusals = _refusals(due, at=at)
    for txn in due:
        if txn.pk not in refusals:
            continue
        event, why = refusals[txn.pk]
        changes = {"failure_reason": why, **({"voided_at": at} if event == Event.MANDATE_REVOKED else {})}
        moved = _move(txn, event, actor=actor, at=at, reason=why, **changes)
        if refused is not None:
            refused.append({"uuid": str(moved.uuid), "status": moved.status, "reason": why})
    return [txn for txn in due if txn.pk not in refusals]
