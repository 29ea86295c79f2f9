"""Account validation (CONTRACT 11, 12; Nacha WEB debit rule 2.5.17.4, prenotes 2.6.3, micro-entries): starting a
prenote or micro-deposits, confirming micro-deposit amounts, the gate every WEB debit passes (keyed on the account,
saved method or one-off), and what `settle`, returns and notices of change do to a validation.

A validation's entries are ordinary ACH transactions: `originate` batches them, `settle` settles them, and
returns and NOCs match them by trace number like any entry (so they count in return monitoring)."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q

from accounts.models import Company, MerchantSettings
from customers.errors import CustomerInactive
from customers.models import Customer
from payments.errors import PaymentMethodBlocked
from payments.models import PaymentMethod
from payments.services import (
    payment_method_lock,
    payment_method_validation_failed,
    payment_method_validation_passed,
    payment_method_validation_pending,
    payment_methods_lock,
)
from transactions import calendar
from transactions.calendar import company_cutoff
from transactions.effective_dates import effective_date_resolve
from transactions.methods import ACH, sec_codes
from transactions.methods.bank import bank_fields
from transactions.models import (
    AccountValidation,
    Status,
    Transaction,
    TransactionHold,
    TransactionType,
)
from transactions.risk.limits import RiskOutcome
from transactions.rules import DEFAULT_ENTRY_DESCRIPTION
from transactions.state import Actor, Event, transaction_create, transaction_lock, transition
from vault import crypto
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict

PRENOTE_WAIT_BANKING_DAYS = 3  # Nacha 2.6.3: live entries no sooner than 3 banking days after the prenote
MICRODEPOSIT_ATTEMPTS = 3
MICRODEPOSIT_STARTS_MAX = 2  # micro-deposit validations a method may start per window
MICRODEPOSIT_STARTS_WINDOW = timedelta(days=30)
MICRODEPOSIT_EXPIRY = timedelta(days=10)
MICRODEPOSIT_MAX_CENTS = 99  # micro-entry credits are under $1.00
MICRO_ENTRY_DESCRIPTION = "ACCTVERIFY"  # required for micro-entries
HOLD_CODE = "VAL"
HOLD_REASON = "awaiting account validation"
NOT_VALIDATED = "account not validated"
VALIDATION_FAILED = "account validation failed"
PRENOTE_RETURNED = "prenote returned"
PRENOTE_CORRECTED = "prenote answered with a notice of change: charge the corrected account"
MICRO_ENTRY_RETURNED = "micro-entry returned"
EXPIRED = "micro-deposits expired"
TOO_MANY_ATTEMPTS = "micro-deposit amounts did not match in 3 attempts"

Kind = AccountValidation.Kind
State = AccountValidation.State


def _sec_code(customer: Customer | None, *, micro: bool) -> str:
    """CCD for an organization. For a consumer, a prenote travels as the account's future debits will (WEB);
    micro-entries are PPD, because a WEB credit is for person-to-person transfers only (docs/ach-rules.md)."""
    if sec_codes.account_holder(customer) == sec_codes.ORGANIZATION:
        return "CCD"
    return "PPD" if micro else "WEB"


def _amounts_hash(validation_uuid, amounts: Sequence[int]) -> str:
    return crypto.blind_index("microdeposits", str(validation_uuid), ",".join(str(a) for a in sorted(amounts)))


@dataclass(frozen=True)
class Account:
    """The account a validation sends its entries to: a saved method's, or a one-off charge's payment details."""

    name: str
    account_type: str
    account_number: str
    routing_number: str

    @classmethod
    def of_method(cls, method: PaymentMethod, customer: Customer) -> Account:
        # A NOC C04 corrected the holder's name on the method: the entries carry it.
        name = method.corrected_name or customer.holder_name
        return cls(name, method.account_type, method.account_number, method.routing_number)

    @property
    def hash(self) -> str:
        return crypto.account_pair_hash(self.routing_number, self.account_number)


def _entry(
    validation: AccountValidation, customer: Customer | None, account: Account, *, micro: bool, **fields
) -> Transaction:
    return Transaction(
        company_id=validation.company_id,
        customer=customer,
        payment_method_id=validation.payment_method_id,
        method=ACH.code,
        standard_entry_class_code=_sec_code(customer, micro=micro),
        effective_date=validation.effective_date,
        created_at=validation.created_at,
        account_validation=validation,
        entry_description=MICRO_ENTRY_DESCRIPTION if micro else DEFAULT_ENTRY_DESCRIPTION,
        **bank_fields(
            name=account.name,
            account_type=account.account_type,
            account_number=account.account_number,
            routing_number=account.routing_number,
        ),
        **fields,
    )


def _validation_create(
    *,
    company: Company,
    customer: Customer | None,
    method: PaymentMethod | None,
    account: Account,
    kind: str,
    actor: Actor,
    now: datetime,
) -> tuple[AccountValidation, list[int]]:
    """The validation and its entries, for the next `originate`, with the micro-deposit amounts (none for a
    prenote): they leave this function only for a sandbox company. The method's row, when there is one, is locked
    by the caller."""
    if method is not None and method.blocked_at is not None:
        raise PaymentMethodBlocked(f"payment method is blocked: {method.blocked_reason or 'blocked'}", status=409)
    if method is not None and kind == Kind.MICRODEPOSITS:
        _microdeposit_starts_check(method=method, now=now)
    # The day its entries settle (the banking day after the next window's), as a charge's effectiveDate.
    day = effective_date_resolve(requested=None, now=now, cutoff=company_cutoff(company), kind=ACH)
    try:
        with transaction.atomic():
            validation = AccountValidation.objects.create(
                company=company,
                payment_method=method,
                account_hash=account.hash,
                kind=kind,
                effective_date=day,
                created_at=now,
                expires_at=now + MICRODEPOSIT_EXPIRY if kind == Kind.MICRODEPOSITS else None,
            )
    except IntegrityError:
        # The partial unique indexes: one validation in flight per method (or per account without a method),
        # also for requests at once.
        raise Conflict(
            "a validation of this payment method is already pending", code=ErrorCode.VALIDATION_PENDING
        ) from None
    credits: list[int] = []
    if kind == Kind.PRENOTE:
        entries = [_entry(validation, customer, account, micro=False, type=TransactionType.DEBIT, amount=0)]
    else:
        credits = [secrets.randbelow(MICRODEPOSIT_MAX_CENTS) + 1 for _ in range(2)]
        validation.amounts_hash = _amounts_hash(validation.uuid, credits)
        validation.save(update_fields=["amounts_hash"])
        # Two credits and one debit offsetting them exactly, settling together (micro-entry rules).
        entries = [
            _entry(validation, customer, account, micro=True, type=TransactionType.CREDIT, amount=a) for a in credits
        ]
        entries.append(
            _entry(validation, customer, account, micro=True, type=TransactionType.DEBIT, amount=sum(credits))
        )
    for entry in entries:
        transaction_create(entry, status=Status.PENDING, actor=actor)
    if method is not None:
        payment_method_validation_pending(method, kind=kind)
    return validation, credits


def _microdeposit_starts_check(*, method: PaymentMethod, now: datetime) -> None:
    """the ACH rules: micro-deposits may start at most twice per 30 days per method, so guessing the amounts
    (3 answers each) cannot go on; a prenote stays possible. The method's row lock orders concurrent starts."""
    started = AccountValidation.objects.filter(
        company_id=method.company_id,
        payment_method=method,
        kind=Kind.MICRODEPOSITS,
        created_at__gt=now - MICRODEPOSIT_STARTS_WINDOW,
    ).count()
    if started >= MICRODEPOSIT_STARTS_MAX:
        raise Conflict(
            f"micro-deposits were started {started} times in the last {MICRODEPOSIT_STARTS_WINDOW.days} days "
            "for this payment method; validate it with a prenote, or try again later",
            code=ErrorCode.VALIDATION_ATTEMPTS_EXHAUSTED,
        )


@dataclass(frozen=True)
class ValidationStarted:
    method: PaymentMethod
    # The micro-deposit amounts, for a sandbox company only: a test integration confirms them. A live
    # company never sees them: the payer reads them on the bank statement.
    test_amounts: list[int] | None


@transaction.atomic
def account_validation_start(
    *, company: Company, customer: Customer, payment_method: PaymentMethod, kind: str, actor: Actor, now: datetime
) -> ValidationStarted:
    """POST .../validate: a prenote or micro-deposits go out in the next file; the method is `pending`."""
    if customer.status != Customer.Status.ACTIVE:
        raise CustomerInactive("customer is inactive")
    method = payment_method_lock(company=company, customer=customer, payment_method=payment_method)
    account = Account.of_method(method, customer)
    _validation, amounts = _validation_create(
        company=company, customer=customer, method=method, account=account, kind=kind, actor=actor, now=now
    )
    return ValidationStarted(method, sorted(amounts) if company.is_sandbox and amounts else None)


@dataclass(frozen=True)
class ConfirmResult:
    method: PaymentMethod
    error: ApiError | None  # raised by the caller after the commit, so the attempt stays counted


def microdeposits_confirm(
    *,
    company: Company,
    customer: Customer,
    payment_method: PaymentMethod,
    amounts: Sequence[int],
    actor: Actor,
    now: datetime,
) -> ConfirmResult:
    """POST .../validate/confirm: the payer's two amounts. Right: validated. Wrong: one attempt used; the third
    wrong one, or any answer after 10 days, fails the validation."""
    with transaction.atomic():
        method = payment_method_lock(company=company, customer=customer, payment_method=payment_method)
        validation = (
            AccountValidation.objects.select_for_update()
            .filter(company=company, payment_method=method, kind=Kind.MICRODEPOSITS, state=State.PENDING)
            .first()
        )
        if validation is None:
            raise Conflict(
                "no micro-deposit validation of this payment method is pending", code=ErrorCode.NO_VALIDATION_PENDING
            )
        if now >= validation.expires_at:
            _finish(validation, method, passed=False, reason=EXPIRED, actor=actor, at=now)
            return ConfirmResult(
                method,
                Conflict("the micro-deposits have expired; start a new validation", code=ErrorCode.VALIDATION_EXPIRED),
            )
        if _amounts_hash(validation.uuid, amounts) == validation.amounts_hash:
            _finish(validation, method, passed=True, actor=actor, at=now)
            return ConfirmResult(method, None)
        validation.attempts += 1
        validation.save(update_fields=["attempts"])
        left = MICRODEPOSIT_ATTEMPTS - validation.attempts
        if left <= 0:
            _finish(validation, method, passed=False, reason=TOO_MANY_ATTEMPTS, actor=actor, at=now)
            message = "amounts do not match; no attempts left: the validation failed"
        else:
            message = f"amounts do not match; {left} attempt{'s' if left > 1 else ''} left"
        return ConfirmResult(method, ApiError(message, field="amounts", code=ErrorCode.AMOUNTS_MISMATCH))


def _finish(
    validation: AccountValidation,
    method: PaymentMethod | None,
    *,
    passed: bool,
    actor: Actor,
    at: datetime,
    reason: str = "",
) -> None:
    """Validated or failed, the method's state with it (when this is its latest validation), and the debits
    held for it released or declined. What it proves is the account the method holds now (a NOC may have
    corrected it since the entries went out)."""
    validation.state = State.VALIDATED if passed else State.FAILED
    validation.finished_at = at
    validation.failure_reason = reason
    if method is not None:
        validation.account_hash = method.account_hash
    validation.save(update_fields=["state", "finished_at", "failure_reason", "account_hash"])
    if method is not None:
        newer = AccountValidation.objects.filter(payment_method_id=method.pk, id__gt=validation.pk).exists()
        if newer:
            return
        if passed:
            payment_method_validation_passed(method, kind=validation.kind, at=at)
        else:
            payment_method_validation_failed(method, kind=validation.kind)
    held_debits_settle(validation=validation, method=method, passed=passed, actor=actor, at=at)


def held_debits_settle(
    *, validation: AccountValidation, method: PaymentMethod | None, passed: bool, actor: Actor, at: datetime
) -> int:
    """The debits a `prenote_first` policy held for this method or this account (one-off debits to it):
    released (Pending, for the next `originate`) once it is validated, DECLINED when its validation failed."""
    held_for = Q(payment_method_id=method.pk) if method is not None else Q(pk__in=[])
    sent_to = validation.entries.values("account_number_hash", "routing_number").first()
    if sent_to is not None:
        held_for |= Q(**sent_to)
    held = transaction_lock(
        Transaction.objects.filter(
            held_for, company_id=validation.company_id, status=Status.HELD, hold__hold_code=HOLD_CODE
        )
    ).order_by("pk")
    count = 0
    for txn in held:
        if passed:
            TransactionHold.objects.filter(transaction=txn).update(released_at=at)
            transition(txn, Event.RELEASED, actor=actor, at=at, reason="account validated")
        else:
            transition(
                txn, Event.DECLINED, actor=actor, at=at, reason=VALIDATION_FAILED, failure_reason=VALIDATION_FAILED
            )
        count += 1
    return count


class AccountState:
    """Where a company stands with one account: its latest finished validation decides, a pending one waits."""

    VALIDATED = "validated"
    PENDING = "pending"
    FAILED = "failed"
    UNVALIDATED = "unvalidated"


def account_state(*, company: Company, account_hash: str) -> str:
    states = list(
        AccountValidation.objects.filter(company=company, account_hash=account_hash)
        .order_by("-id")
        .values_list("state", flat=True)
    )
    finished = next((state for state in states if state != State.PENDING), None)
    if finished == State.VALIDATED:
        return AccountState.VALIDATED
    if State.PENDING in states:
        return AccountState.PENDING
    return AccountState.FAILED if finished == State.FAILED else AccountState.UNVALIDATED


def _gate_state(*, company: Company, account: Account, saved: PaymentMethod | None) -> str:
    """The account's state for the company; a saved method's own state counts as one of its validations (it
    follows the method's current account: a new account number resets it)."""
    if saved is not None and saved.validation_status == PaymentMethod.ValidationStatus.VALIDATED:
        return AccountState.VALIDATED
    state = account_state(company=company, account_hash=account.hash)
    if state == AccountState.UNVALIDATED and saved is not None:
        return saved.validation_status
    return state


def web_debit_gate_writes(*, company: Company, txn_type: str) -> bool:
    """Whether web_debit_gate may lock a saved method or start a prenote (a `prenote_first` company's debit), and so
    must run in the charge's transaction."""
    return (
        company.merchant_settings.account_validation == MerchantSettings.AccountValidation.PRENOTE_FIRST
        and txn_type == TransactionType.DEBIT
    )


def web_debit_gate(
    *,
    company: Company,
    customer: Customer | None,
    saved: PaymentMethod | None,
    account: Account,
    sec_code: str,
    txn_type: str,
    actor: Actor,
    now: datetime,
) -> RiskOutcome | None:
    """The company's policy for every ACH WEB debit, saved method or one-off (CONTRACT 11, 12), keyed on the
    account (routing + account number) within the company: validated passes; otherwise `require` declines it;
    `prenote_first` holds it (VAL) and sends a prenote unless one is pending; `off` lets it through. Runs inside
    the charge's transaction."""
    policy = company.merchant_settings.account_validation
    if policy == MerchantSettings.AccountValidation.OFF or sec_code != "WEB" or txn_type != TransactionType.DEBIT:
        return None
    if _gate_state(company=company, account=account, saved=saved) == AccountState.VALIDATED:
        return None
    if policy == MerchantSettings.AccountValidation.REQUIRE:
        return RiskOutcome(Status.DECLINED, HOLD_CODE, NOT_VALIDATED)
    if saved is not None:  # STYLE lock order: customer, method; then the state again, as the lock found it
        saved = payment_method_lock(company=company, customer=customer, payment_method=saved)
    state = _gate_state(company=company, account=account, saved=saved)
    if state == AccountState.VALIDATED:
        return None
    if state == AccountState.FAILED:
        return RiskOutcome(Status.DECLINED, HOLD_CODE, VALIDATION_FAILED)
    if state == AccountState.UNVALIDATED:
        try:
            _validation_create(
                company=company,
                customer=customer,
                method=saved,
                account=account,
                kind=Kind.PRENOTE,
                actor=actor,
                now=now,
            )
        except Conflict:
            pass  # a concurrent charge to the same account started its prenote first: this debit waits for it
    return RiskOutcome(Status.HELD, HOLD_CODE, HOLD_REASON)


# --- what the lifecycle commands do to validations ---------------------------------------------------------------


def _validations_locked(
    validation_ids: Iterable[int], *, exclude_failed: bool = True
) -> list[tuple[AccountValidation, PaymentMethod | None]]:
    """Each validation with its method (None for an account validated without one), locked method first
    (STYLE lock order), in id order."""
    found = []
    for validation_id in sorted(set(validation_ids)):
        method_id = AccountValidation.objects.filter(pk=validation_id).values_list("payment_method_id", flat=True)[0]
        method = None if method_id is None else payment_methods_lock(ids=[method_id])[method_id]
        validation = AccountValidation.objects.select_for_update().get(pk=validation_id)
        if not (exclude_failed and validation.state == State.FAILED):
            found.append((validation, method))
    return found


def _pending_of(transaction_ids: Iterable[int]) -> list[tuple[AccountValidation, PaymentMethod]]:
    ids = set(transaction_ids)
    validation_ids = Transaction.objects.filter(pk__in=ids, account_validation__isnull=False).values_list(
        "account_validation_id", flat=True
    )
    return _validations_locked(validation_ids)


def validations_returned(*, transaction_ids: Iterable[int], actor: Actor, at: datetime) -> int:
    """Returns of validation entries (inside `import_returns`' transaction): the validation fails."""
    count = 0
    for validation, method in _pending_of(transaction_ids):
        reason = PRENOTE_RETURNED if validation.kind == Kind.PRENOTE else MICRO_ENTRY_RETURNED
        _finish(validation, method, passed=False, reason=reason, actor=actor, at=at)
        count += 1
    return count


def validations_noticed(*, transaction_ids: Iterable[int], actor: Actor, at: datetime) -> int:
    """A NOC on a prenote: the account exists and the method was corrected (as every NOC does), so it is
    validated; without a method (a one-off account) nothing was corrected, so it fails.
    A NOC on a micro-entry leaves the amounts to be confirmed: the method stays pending."""
    count = 0
    for validation, method in _pending_of(transaction_ids):
        if validation.state != State.PENDING:
            continue
        if validation.kind == Kind.PRENOTE and method is None:
            # No saved method to correct: the account the one-off debits were held for is not the right one.
            _finish(validation, None, passed=False, reason=PRENOTE_CORRECTED, actor=actor, at=at)
        elif validation.kind == Kind.PRENOTE:
            _finish(validation, method, passed=True, actor=actor, at=at)
        else:
            payment_method_validation_pending(method, kind=validation.kind)
        count += 1
    return count


@transaction.atomic
def validations_settle(*, at: datetime, actor: Actor, company_ids: Sequence[int] | None = None) -> dict[str, int]:
    """`settle`: prenotes that went out at least 3 banking days ago without a return or NOC validate their
    method; micro-deposits unconfirmed after 10 days fail. Compare-and-set on the pending state: a rerun or a
    concurrent run finishes each validation once."""
    today = calendar.eastern_now(at).date()
    only = Q(company_id__in=company_ids) if company_ids is not None else Q()
    sent_prenotes = Transaction.objects.filter(
        only,
        account_validation__kind=Kind.PRENOTE,
        account_validation__state=State.PENDING,
        status__in=(Status.PROCESSING, Status.SETTLED),
        batch__origination_file__sha256__gt="",
        return_code__isnull=True,
        change_notice__isnull=True,
    ).values_list("account_validation_id", "batch__effective_date")
    due = [
        pk for pk, sent_on in sent_prenotes if calendar.add_business_days(sent_on, PRENOTE_WAIT_BANKING_DAYS) <= today
    ]
    expired = AccountValidation.objects.filter(only, kind=Kind.MICRODEPOSITS, state=State.PENDING, expires_at__lte=at)
    counts = {"validated": 0, "failed": 0}
    for validation_ids, passed in ((due, True), (list(expired.values_list("pk", flat=True)), False)):
        for validation, method in _validations_locked(validation_ids):
            if validation.state != State.PENDING:
                continue
            _finish(validation, method, passed=passed, reason="" if passed else EXPIRED, actor=actor, at=at)
            counts["validated" if passed else "failed"] += 1
    return counts
