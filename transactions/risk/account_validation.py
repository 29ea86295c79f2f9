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
from django.db.models import Max, Q

from accounts.models import Company, MerchantSettings
from customers.errors import CustomerInactive
from customers.models import Customer
from payments.errors import PaymentMethodBlocked
from payments.models import PaymentMethod
from payments.services import (
    payment_method_lock,
    payment_method_validation_pending,
    payment_methods_lock,
    payment_methods_validation_set,
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
from transactions.state import (
    Actor,
    Event,
    locked_transition,
    rows_lock_checked,
    transaction_create,
)
from vault import crypto
from vault.db import ids_in, rows_update
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


@dataclass(frozen=True)
class Finished:
    """A validation that ends here, with its locked method (None for an account validated without one)."""

    validation: AccountValidation
    method: PaymentMethod | None
    passed: bool
    reason: str = ""


def _finish(
    validation: AccountValidation,
    method: PaymentMethod | None,
    *,
    passed: bool,
    actor: Actor,
    at: datetime,
    reason: str = "",
) -> None:
    _finish_many([Finished(validation, method, passed, reason)], actor=actor, at=at)


def _finish_many(finished: Sequence[Finished], *, actor: Actor, at: datetime) -> None:
    """Validated or failed, each method's state with it (when this is its latest validation), and the debits held
    for them released or declined: a few statements however many. What a validation proves is the account its
    method holds now (a NOC may have corrected it since the entries went out)."""
    if not finished:
        return
    for item in finished:
        validation = item.validation
        validation.state = State.VALIDATED if item.passed else State.FAILED
        validation.finished_at = at
        validation.failure_reason = item.reason
        if item.method is not None:
            validation.account_hash = item.method.account_hash
    rows_update(AccountValidation, [item.validation for item in finished], _FINISHED_FIELDS)
    latest = dict(
        AccountValidation.objects.filter(payment_method_id__in={item.method.pk for item in finished if item.method})
        .order_by()
        .values("payment_method_id")
        .annotate(latest=Max("pk"))
        .values_list("payment_method_id", "latest")
    )
    payment_methods_validation_set(
        [
            (
                item.method,
                PaymentMethod.ValidationStatus.VALIDATED if item.passed else PaymentMethod.ValidationStatus.FAILED,
                item.validation.kind,
                at if item.passed else None,
            )
            for item in finished
            if item.method is not None and latest[item.method.pk] == item.validation.pk
        ]
    )
    held_debits_settle(finished, actor=actor, at=at)


_FINISHED_FIELDS = ("state", "finished_at", "failure_reason", "account_hash")


def _held_for(finished: Sequence[Finished]) -> tuple[dict[int, int], dict[tuple[int, str, str], int]]:
    """Which validation a held debit waits on, by the first that claims it: by saved method (method id -> index in
    `finished`), or by the account its entries went to ((company, account number hash, routing) -> index)."""
    by_method: dict[int, int] = {}
    by_account: dict[tuple[int, str, str], int] = {}
    sent_to: dict[int, tuple[str, str]] = {}
    entries = (
        Transaction.objects.filter(account_validation_id__in=[item.validation.pk for item in finished])
        .order_by("pk")
        .values_list("account_validation_id", "account_number_hash", "routing_number")
    )
    for validation_id, number_hash, routing in entries:
        sent_to.setdefault(validation_id, (number_hash, routing))
    for index, item in enumerate(finished):
        if item.method is not None:
            by_method.setdefault(item.method.pk, index)
        if item.validation.pk in sent_to:
            by_account.setdefault((item.validation.company_id, *sent_to[item.validation.pk]), index)
    return by_method, by_account


def held_debits_settle(finished: Sequence[Finished], *, actor: Actor, at: datetime) -> None:
    """The debits a `prenote_first` policy held for these methods or accounts (one-off debits to them): released
    (Pending, for the next `originate`) once validated, DECLINED when the validation failed."""
    by_method, by_account = _held_for(finished)
    if not by_method and not by_account:
        return
    held = Transaction.objects.filter(
        Q(payment_method_id__in=set(by_method)) | Q(account_number_hash__in={key[1] for key in by_account}),
        company_id__in={item.validation.company_id for item in finished},
        status=Status.HELD,
        hold__hold_code=HOLD_CODE,
    )
    locked = rows_lock_checked(held, read=("payment_method_id", "account_number_hash", "routing_number"))
    released, declined = [], []
    for row in locked:
        _pk, company_id, *_checked, method_id, number_hash, routing = row
        waits_on = [by_method.get(method_id), by_account.get((company_id, number_hash, routing))]
        waits_on = [index for index in waits_on if index is not None]
        if waits_on:
            (released if finished[min(waits_on)].passed else declined).append(row)
    TransactionHold.objects.filter(transaction_id__in=[row[0] for row in released]).update(released_at=at)
    locked_transition(released, Event.RELEASED, actor=actor, at=at, reason="account validated")
    locked_transition(
        declined,
        Event.DECLINED,
        actor=actor,
        at=at,
        reason=VALIDATION_FAILED,
        changes={"failure_reason": VALIDATION_FAILED},
    )


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
    """Each validation with its method (None for an account validated without one), in id order: the methods
    locked first, then the validations (STYLE lock order)."""
    ids = sorted(set(validation_ids))
    method_ids = AccountValidation.objects.filter(pk__in=ids).values_list("payment_method_id", flat=True)
    methods = payment_methods_lock(ids={method_id for method_id in method_ids if method_id is not None})
    validations = AccountValidation.objects.select_for_update().filter(pk__in=ids).order_by("pk")
    return [
        (validation, methods.get(validation.payment_method_id))
        for validation in validations
        if not (exclude_failed and validation.state == State.FAILED)
    ]


def _pending_of(transaction_ids: Iterable[int]) -> list[tuple[AccountValidation, PaymentMethod]]:
    ids = set(transaction_ids)
    validation_ids = Transaction.objects.filter(ids_in(ids), account_validation__isnull=False).values_list(
        "account_validation_id", flat=True
    )
    return _validations_locked(validation_ids)


def validations_returned(*, transaction_ids: Iterable[int], actor: Actor, at: datetime) -> int:
    """Returns of validation entries (inside `import_returns`' transaction): the validation fails."""
    finished = [
        Finished(
            validation, method, False, PRENOTE_RETURNED if validation.kind == Kind.PRENOTE else MICRO_ENTRY_RETURNED
        )
        for validation, method in _pending_of(transaction_ids)
    ]
    _finish_many(finished, actor=actor, at=at)
    return len(finished)


def validations_noticed(*, transaction_ids: Iterable[int], actor: Actor, at: datetime) -> int:
    """A NOC on a prenote: the account exists and the method was corrected (as every NOC does), so it is
    validated; without a method (a one-off account) nothing was corrected, so it fails.
    A NOC on a micro-entry leaves the amounts to be confirmed: the method stays pending."""
    finished, pending = [], []
    for validation, method in _pending_of(transaction_ids):
        if validation.state != State.PENDING:
            continue
        if validation.kind == Kind.PRENOTE and method is None:
            # No saved method to correct: the account the one-off debits were held for is not the right one.
            finished.append(Finished(validation, None, False, PRENOTE_CORRECTED))
        elif validation.kind == Kind.PRENOTE:
            finished.append(Finished(validation, method, True))
        else:
            pending.append((method, PaymentMethod.ValidationStatus.PENDING, validation.kind, None))
    _finish_many(finished, actor=actor, at=at)
    payment_methods_validation_set(pending)
    return len(finished) + len(pending)


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
    finished = [
        Finished(validation, method, passed, "" if passed else EXPIRED)
        for validation_ids, passed in ((due, True), (list(expired.values_list("pk", flat=True)), False))
        for validation, method in _validations_locked(validation_ids)
        if validation.state == State.PENDING
    ]
    _finish_many(finished, actor=actor, at=at)
    return {"validated": sum(item.passed for item in finished), "failed": sum(not item.passed for item in finished)}
