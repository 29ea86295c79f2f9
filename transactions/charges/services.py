"""Writes for charges: create (SPEC 4.7 rules in transactions.charges.rules, idempotency in
idempotency.services) and void, and what an accepted charge goes through (RTP settlement, card authorisation)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from uuid import UUID

from django.db import connection, transaction
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from idempotency.services import ChargeResult, idempotent
from mandates.models import Mandate
from mandates.rules import debit_mandate, mandate_asked
from mandates.services import mandate_use
from payments.models import PaymentMethod
from transactions.calendar import company_cutoff
from transactions.charges.rules import (
    entry_description_resolve,
    payer_fields,
    payer_resolve,
    same_day_check,
)
from transactions.effective_dates import effective_date_resolve
from transactions.methods import PaymentMethodKind, method_kind
from transactions.methods.sec_codes import account_holder
from transactions.models import (
    Finality,
    Status,
    Transaction,
    TransactionHold,
    TransactionType,
)
from transactions.records import transaction_record
from transactions.risk.account_rules import (
    Reauthorization,
    debit_account_check,
    debited_account,
    saved_account_rows,
)
from transactions.risk.account_validation import Account, web_debit_gate, web_debit_gate_writes
from transactions.risk.credit_monitoring import ReceiverAccount
from transactions.risk.limits import risk_assess, risk_assess_locks
from transactions.selectors import TransactionNotFound, duplicate_of, transaction_get
from transactions.state import Actor, Event, target_of, transaction_create, transaction_lock, transition

# The fields `accepted_charge_process` may change besides the status, for a save(update_fields=...) after it.
PROCESSED_FIELDS = (
    "settlement",
    "expected_to_settle_at",
    "rtp_transaction_id",
    "authorized_at",
    "auth_response_code",
    "failure_reason",
)


def accepted_charge_process(*, txn: Transaction, now: datetime) -> Event | None:
    """What a Pending charge that passed risk goes through: at creation, and again when an operator releases
    its hold or restores it. RTP settles at once; a card is authorised (declined when it has expired since),
    then captured by `settle`; ACH and RCC stay Pending for `originate`. Idempotent: a charge already
    settled or authorised is left as it is. The method's `accept` sets the fields that go with it and answers
    the move the charge makes from Pending (settled, declined), if any; the caller has transactions.state
    write it."""
    then = method_kind(txn.method).accept(txn, now)
    return None if then is None else Event(then.value)


def accepted_charge_resume(*, txn: Transaction, actor: Actor, at: datetime) -> None:
    """A charge back in Pending (released, restored) goes on as a new one would: its fields saved, then its
    move (settled, declined) if it makes one."""
    txn.failure_reason = ""  # the hold's reason was never a failure; a decline now sets its own
    then = accepted_charge_process(txn=txn, now=at)
    txn.save(update_fields=PROCESSED_FIELDS)
    if then is not None:
        transition(txn, then, actor=actor, at=at, reason=txn.failure_reason)


@dataclass(frozen=True)
class ChargeRequest:
    """A charge as asked for, built once from the validated body of PUT /transactions (or by a command)."""

    company: Company
    method: str
    type: str
    amount: int
    actor: Actor
    now: datetime
    customer_uuid: UUID | None = None
    payment_method_uuid: UUID | None = None
    payment_details: dict[str, Any] | None = None
    standard_entry_class_code: str = ""
    effective_date: date | None = None
    external_unique_id: str = ""
    description: str = ""
    idempotency_key: str = ""
    request_hash: str = ""
    retry_of: Transaction | None = None  # a re-presentment of a returned debit points at the first presentment
    entry_description: str | None = None
    purpose: str | None = None  # CONTRACT 11
    is_same_day: bool = False  # CONTRACT 12: Same Day ACH only when asked for
    retry_policy: str | None = None  # "none": never re-presented automatically (CONTRACT 15)
    mandate_uuid: UUID | None = None  # CONTRACT 14
    # A schedule's own debit (CONTRACT 14, 2026-12-07): one of a series of recurring entries, never a re-initiation of
    # a debit returned R01/R09 (Nacha 2.12.4), so section 12's re-initiation rule does not refuse it.
    installment: bool = False

    @property
    def reinitiates_nothing(self) -> bool:
        """A re-presentment or an installment: the R01/R09 re-initiation rule does not apply to it."""
        return self.retry_of is not None or self.installment


def transaction_charge(charge: ChargeRequest) -> ChargeResult:
    """PUT /transactions: at most once per Idempotency-Key (idempotency.services)."""
    if not charge.idempotency_key and _writes_once(charge):
        return ChargeResult(201, _charged(charge)[1])
    if not charge.idempotency_key:
        with transaction.atomic():
            return ChargeResult(201, _charged(charge)[1])
    return idempotent(
        company=charge.company,
        key=charge.idempotency_key,
        request_hash=charge.request_hash,
        now=charge.now,
        create=lambda: _charged(charge),
    )


def _writes_once(charge: ChargeRequest) -> bool:
    """Whether the charge needs no transaction of its own: on PostgreSQL, outside a caller's transaction, its row,
    trail and events are one statement (transactions.state) and its reads before lock nothing, unless it is accepted
    with a write (RTP's settlement), risk locks the company (daily volume, monitored credits) or the account
    validation gate may start a prenote. BEGIN and COMMIT were two of its six round trips. A risk hold is the one
    other row it may write: transaction_create makes the row and the hold one transaction itself. The fast twin of
    the charge's own locks and writes: tests/transactions/charges/test_writes_once.py holds every setting, method and
    direction to it."""
    company = charge.company
    return (
        connection.vendor == "postgresql"
        and not connection.in_atomic_block
        and not method_kind(charge.method).writes_when_accepted
        and not risk_assess_locks(company=company, type=charge.type)
        and not web_debit_gate_writes(company=company, txn_type=charge.type)
        and not mandate_asked(company=company, mandate_uuid=charge.mandate_uuid)  # a single mandate is used up
    )


def _charged(charge: ChargeRequest) -> tuple[Transaction, dict[str, Any]]:
    txn = _charge(charge)
    return txn, transaction_record(txn)


def _charge(charge: ChargeRequest) -> Transaction:
    """SPEC 4.7 in order (transactions.charges.rules): who pays, on which day, then risk decides how it is born."""
    kind = method_kind(charge.method)
    same_day_check(kind=kind, amount=charge.amount, same_day=charge.is_same_day)
    customer, saved = _payer_checked(charge, kind)
    sec_code, entry_description = _sec_code_and_description(charge, kind, customer)
    payer = payer_fields(method=kind, details=charge.payment_details, customer=customer, saved=saved)
    day = effective_date_resolve(
        requested=charge.effective_date,
        now=charge.now,
        cutoff=company_cutoff(charge.company),
        kind=kind,
        same_day=charge.is_same_day,
    )
    mandate = _mandate_checked(charge, kind, customer=customer, saved=saved, sec_code=sec_code)
    txn = _unsaved_transaction(charge, customer=customer, saved=saved, payer=payer, day=day)
    txn.mandate = mandate
    txn.standard_entry_class_code = sec_code
    txn.entry_description, txn.purpose = entry_description, charge.purpose
    outcome = risk_assess(  # rule 9, and the return-rate program's debit holds
        company=charge.company,
        amount=charge.amount,
        now=charge.now,
        method=kind,
        type=charge.type,
        customer=customer,
        receiver=ReceiverAccount(txn.account_number_hash, txn.routing_number, saved)
        if txn.account_number_hash
        else None,
    )
    if outcome is None:  # CONTRACT 11, 12: every WEB debit, saved or one-off (the gate reads the SEC code)
        outcome = web_debit_gate(
            company=charge.company,
            customer=customer,
            saved=saved,
            account=Account(txn.name, txn.account_type, txn.account_number, txn.routing_number),
            sec_code=txn.standard_entry_class_code,
            txn_type=charge.type,
            actor=charge.actor,
            now=charge.now,
        )
    hold = None
    if outcome is None:
        then = accepted_charge_process(txn=txn, now=charge.now)
        born = Status.PENDING if then is None else target_of(Status.PENDING, then)
    else:
        born, txn.failure_reason = outcome.status, outcome.reason
        if born == Status.HELD:
            hold = TransactionHold(
                company=charge.company, hold_code=outcome.code, hold_reason=outcome.reason, held_at=charge.now
            )
    if mandate is not None and born != Status.DECLINED and charge.retry_of is None:
        mandate_use(mandate=mandate, now=charge.now)
    return transaction_create(txn, status=born, actor=charge.actor, hold=hold)


def _mandate_checked(charge: ChargeRequest, kind: PaymentMethodKind, *, customer, saved, sec_code: str):
    """CONTRACT 14: the mandate a debit goes under, checked against its terms (mandates.rules); None, at no query,
    for a charge that names none under policy off."""
    if not mandate_asked(company=charge.company, mandate_uuid=charge.mandate_uuid):
        return None
    if not kind.in_nacha_file and charge.mandate_uuid is None:
        return None  # policy require covers bank debits that go out in a NACHA file
    return debit_mandate(
        company=charge.company,
        mandate_uuid=charge.mandate_uuid,
        is_debit=charge.type == TransactionType.DEBIT,
        holder=account_holder(customer),
        customer=customer,
        saved=saved,
        sec_code=sec_code,
        amount=charge.amount,
        representment=charge.retry_of is not None,
    )


def _sec_code_and_description(charge: ChargeRequest, kind: PaymentMethodKind, customer) -> tuple[str, str | None]:
    """CONTRACT 12 (SEC code by direction and holder) and 11 (Company Entry Description, reserved ones refused)."""
    sec_code = kind.sec_code_resolve(
        charge.standard_entry_class_code, type=charge.type, holder=account_holder(customer)
    )
    entry_description = entry_description_resolve(
        method=kind,
        sec_code=sec_code,
        type=charge.type,
        purpose=charge.purpose,
        requested=charge.entry_description,
        written_by_service=charge.retry_of is not None,
    )
    return sec_code, entry_description


def _payer_checked(charge: ChargeRequest, kind: PaymentMethodKind) -> tuple[Customer | None, PaymentMethod | None]:
    """Who pays (rules 7, 8), and for a debit that goes in a NACHA file the account's debit rules: read in the
    saved method's statement on PostgreSQL (one round trip for both), else on their own."""
    checks_debit = charge.type == TransactionType.DEBIT and kind.in_nacha_file
    with_method = checks_debit and charge.payment_method_uuid is not None and connection.vendor == "postgresql"
    customer, saved, account_rows = payer_resolve(
        company=charge.company,
        customer_uuid=charge.customer_uuid,
        payment_method_uuid=charge.payment_method_uuid,
        also=saved_account_rows(company_id=charge.company.pk, now=charge.now, retry=charge.reinitiates_nothing)
        if with_method
        else None,
    )
    if checks_debit:
        _debited_account_check(charge, saved, account_rows)
    return customer, saved


def _debited_account_check(charge: ChargeRequest, saved, rows) -> None:
    """CONTRACT 12: a debit that would go out in a NACHA file is refused while its account is blocked, and a
    re-initiation of a debit returned R01/R09 must be the retry (transactions.risk.account_rules). Its statement
    also reads the company's debit holds flag afresh. `rows`: its answer, when the saved method's read asked."""
    account = debited_account(saved=saved, details=charge.payment_details)
    if account is not None:
        # The flag as it is now, for risk_assess: the company may be authentication's copy, seconds old.
        charge.company.merchant_settings.has_debit_holds = debit_account_check(
            company_id=charge.company.pk,
            account=account,
            now=charge.now,
            retry=charge.reinitiates_nothing,
            rows=rows,
            reauthorization=_reauthorization(charge) if charge.mandate_uuid is not None else None,
        )


def _reauthorization(charge: ChargeRequest) -> Reauthorization | None:
    """The mandate the debit names, as the re-initiation rule reads it (CONTRACT 14): None for none of the company's
    (the mandate check answers 404)."""
    found = (
        Mandate.objects.filter(company=charge.company, uuid=charge.mandate_uuid)
        .values_list("pk", "accepted_at", "channel", "evidence_sha256")
        .first()
    )
    if found is None:
        return None
    pk, accepted_at, channel, evidence_sha256 = found
    return Reauthorization(
        mandate_id=pk,
        mandate_uuid=str(charge.mandate_uuid),
        accepted_at=accepted_at,
        evidenced=channel == Mandate.Channel.ONLINE or bool(evidence_sha256),
        actor=charge.actor,
    )


def _unsaved_transaction(charge: ChargeRequest, *, customer, saved, payer: dict[str, Any], day: date) -> Transaction:
    is_duplicate = duplicate_of(
        company=charge.company,
        amount=charge.amount,
        type=charge.type,
        now=charge.now,
        account_number_hash=payer.get("account_number_hash", ""),
        card_first_six=payer.get("card_first_six", ""),
        card_last_four=payer.get("card_last_four", ""),
    )
    return Transaction(
        company=charge.company,
        customer=customer,
        payment_method=saved,
        method=charge.method,
        type=charge.type,
        amount=charge.amount,
        effective_date=day,
        is_same_day=charge.is_same_day,  # the request until originate batches it (CONTRACT 12)
        created_at=charge.now,
        external_unique_id=charge.external_unique_id,
        idempotency_key=charge.idempotency_key,
        description=charge.description,
        retry_of=charge.retry_of,
        retry_policy=charge.retry_policy,
        entry_description=charge.entry_description,
        is_duplicate=is_duplicate,
        # CONTRACT 15: a debit that can be returned is pending until mark_final says otherwise (one column more of
        # the same INSERT, so reporting's `finality` filter needs no rule of its own).
        finality=Finality.PENDING
        if charge.type == TransactionType.DEBIT and method_kind(charge.method).returnable
        else None,
        **payer,
    )


def transaction_void(
    *, company: Company, transaction_uuid: UUID, actor: Actor, now: datetime | None = None
) -> Transaction:
    """Pending -> Voided; any other status is 409. The row is locked so a concurrent batch or void waits."""
    now = now or timezone.now()
    with transaction.atomic():
        txn = transaction_lock(Transaction.objects.filter(company=company, uuid=transaction_uuid)).first()
        if txn is None:
            raise TransactionNotFound()
        transition(txn, Event.VOIDED, actor=actor, at=now, voided_at=now)
    return transaction_get(company=company, transaction_uuid=transaction_uuid)
