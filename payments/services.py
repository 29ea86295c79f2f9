"""Every write to a saved bank account: create, set default, delete, and what the lifecycle does to one (lock,
block and unblock after a return, correct after a notice of change, the validation state). No other app writes a
PaymentMethod (tests/payments/test_method_writes.py).

Default-flag changes lock the customer row first, then the method (STYLE lock order), so "exactly one
default per customer" holds under concurrency; the partial unique constraints keep the promise in the database."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from customers.services import customer_lock
from events.outbox import EventDraft, events_record, events_record_many
from events.types import EventType
from payments import numbers
from payments.models import PaymentMethod
from payments.serializers import PaymentMethodEventOutput
from vault import crypto
from vault.db import rows_update
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict, NotFound


def account_number_validate(account_number: str) -> None:
    # The message never repeats the value: it is an account number (CONTRACT 5).
    if not numbers.is_account_number(account_number):
        raise ApiError("accountNumber must be 4 to 17 digits", field="accountNumber", code=ErrorCode.INVALID)


def routing_number_validate(routing_number: str) -> None:
    if not numbers.is_routing_number_shape(routing_number):
        raise ApiError("routingNumber must be 9 digits", field="routingNumber", code=ErrorCode.INVALID)
    if not numbers.is_routing_number(routing_number):
        raise ApiError(
            "routingNumber has an invalid ABA check digit", field="routingNumber", code=ErrorCode.INVALID_CHECKSUM
        )


def _live_methods(*, company: Company, customer: Customer):
    return PaymentMethod.objects.filter(company=company, customer=customer, deleted_at__isnull=True)


def _method_drafts(changes: Sequence[tuple[PaymentMethod, str]]) -> list[EventDraft]:
    """The outbox events of changes to saved methods, (method, event type) each: the method as its GET route shows
    it, with the account number masked (one serializer for all: DRF builds its fields once)."""
    methods = [method for method, _type in changes]
    return [
        EventDraft(company_id=method.company_id, type=type, object_uuid=method.uuid, data=data)
        for (method, type), data in zip(changes, PaymentMethodEventOutput(methods, many=True).data, strict=True)
    ]


def payment_method_event(method: PaymentMethod, type: str) -> None:
    """The outbox event for a change to a saved method (call inside the change's transaction)."""
    events_record(_method_drafts([(method, type)]))


class MethodEvents:
    """The events of many changes to saved methods, written together (`write`): each change is announced with the
    method as it is at that moment (a copy), so two changes of one method show each its own state."""

    def __init__(self) -> None:
        self.changes: list[tuple[PaymentMethod, str]] = []

    def __call__(self, method: PaymentMethod, type: str) -> None:
        # copy.copy without the pickling protocol's round (Model.__reduce__), a third of a blocked method's cost.
        snapshot = PaymentMethod.__new__(PaymentMethod)
        snapshot.__dict__.update(method.__getstate__())
        self.changes.append((snapshot, type))

    def write(self) -> None:
        events_record_many(_method_drafts(self.changes))
        self.changes = []


def _clear_default(*, company: Company, customer: Customer) -> None:
    for previous in _live_methods(company=company, customer=customer).filter(is_default=True).select_for_update():
        previous.is_default = False
        previous.save(update_fields=["is_default"])
        payment_method_event(previous, EventType.PAYMENT_METHOD_UPDATED)


@transaction.atomic
def payment_method_create(
    *,
    company: Company,
    customer: Customer,
    account_type: str,
    account_number: str,
    routing_number: str,
    method_type: str = PaymentMethod.Type.BANK,
    nickname: str = "",
    is_default: bool = False,
) -> PaymentMethod:
    """Save a bank account. The customer's first live method is the default whatever `is_default` says;
    `is_default=True` moves the default. The same routing + account again is 409 naming the existing method."""
    if method_type != PaymentMethod.Type.BANK:
        raise ApiError("type must be bank", field="type", code=ErrorCode.INVALID_CHOICE)
    if account_type not in PaymentMethod.AccountType.values:
        raise ApiError("accountType must be Checking or Savings", field="accountType", code=ErrorCode.INVALID_CHOICE)
    account_number_validate(account_number)
    routing_number_validate(routing_number)
    locked = customer_lock(company_id=company.pk, customer_id=customer.pk)
    account_hash = crypto.account_pair_hash(routing_number, account_number)
    make_default = is_default or not _live_methods(company=company, customer=locked).exists()
    try:
        with transaction.atomic():
            if make_default:
                _clear_default(company=company, customer=locked)
            method = PaymentMethod.objects.create(
                company=company,
                customer=locked,
                type=method_type,
                account_type=account_type,
                account_number=account_number,
                account_hash=account_hash,
                account_number_hash=crypto.account_number_hash(account_number),
                unpadded_account_hash=crypto.unpadded_account_hash(account_number),
                last_four=account_number[-4:],
                routing_number=routing_number,
                nickname=nickname,
                is_default=make_default,
            )
            payment_method_event(method, EventType.PAYMENT_METHOD_CREATED)
            return method
    except IntegrityError:
        # The unique (company, customer, account_hash) index is the duplicate check, also for requests at once.
        existing = _live_methods(company=company, customer=locked).filter(account_hash=account_hash).first()
        if existing is None:
            raise
        raise Conflict(
            "This bank account is already saved for the customer",
            field="accountNumber",
            code=ErrorCode.DUPLICATE,
            data={"paymentMethodUuid": str(existing.uuid)},
        ) from None


def _method_lock(*, company: Company, customer: Customer, payment_method: PaymentMethod) -> PaymentMethod:
    locked = _live_methods(company=company, customer=customer).select_for_update().filter(pk=payment_method.pk).first()
    if locked is None:
        raise NotFound("Payment method not found")
    return locked


def payment_method_lock(*, company: Company, customer: Customer, payment_method: PaymentMethod) -> PaymentMethod:
    """The customer's live method, its row locked after the customer's (STYLE lock order); 404 once deleted."""
    locked_customer = customer_lock(company_id=company.pk, customer_id=customer.pk)
    return _method_lock(company=company, customer=locked_customer, payment_method=payment_method)


def payment_methods_lock(*, ids: Iterable[int], numbers: bool = True) -> dict[int, PaymentMethod]:
    """Methods by id, locked in id order, deleted ones too: a return, a notice or a reversal may come for a method
    deleted since its entry went out. `numbers=False` leaves their account numbers unread (each is a decryption)
    until MethodCorrections needs them, all at once: a return file needs none."""
    # The customer comes with each (only the method is locked): a method's event names its customer's uuid.
    methods = (
        PaymentMethod.objects.select_for_update(of=("self",))
        .select_related("customer")
        .filter(pk__in=set(ids))
        .order_by("pk")
    )
    if not numbers:
        methods = methods.defer("account_number")
    return {method.pk: method for method in methods}


def _number_unread(method: PaymentMethod) -> bool:
    """The method came without its account number (payment_methods_lock(numbers=False)) and it was not read since."""
    return "account_number" not in method.__dict__


@transaction.atomic
def payment_method_set_default(*, company: Company, customer: Customer, payment_method: PaymentMethod) -> PaymentMethod:
    locked_customer = customer_lock(company_id=company.pk, customer_id=customer.pk)
    method = _method_lock(company=company, customer=locked_customer, payment_method=payment_method)
    if not method.is_default:
        _clear_default(company=company, customer=locked_customer)
        method.is_default = True
        method.save(update_fields=["is_default"])
        payment_method_event(method, EventType.PAYMENT_METHOD_UPDATED)
    return method


@transaction.atomic
def payment_method_delete(*, company: Company, customer: Customer, payment_method: PaymentMethod) -> PaymentMethod:
    """Soft delete: the row stays for the transactions that charged it; the newest remaining method inherits
    the default."""
    locked_customer = customer_lock(company_id=company.pk, customer_id=customer.pk)
    method = _method_lock(company=company, customer=locked_customer, payment_method=payment_method)
    was_default = method.is_default
    method.deleted_at = timezone.now()
    method.is_default = False
    method.save(update_fields=["deleted_at", "is_default"])
    payment_method_event(method, EventType.PAYMENT_METHOD_DELETED)
    if was_default:
        heir = _live_methods(company=company, customer=locked_customer).order_by("-created_at", "-id").first()
        if heir is not None:
            heir.is_default = True
            heir.save(update_fields=["is_default"])
            payment_method_event(heir, EventType.PAYMENT_METHOD_UPDATED)
    return method


# What the lifecycle does to a saved method. The caller holds the method's row lock (payment_method_lock,
# payment_methods_lock) inside its transaction; each change is saved with its webhook event (CONTRACT 9).


def payment_method_block(
    method: PaymentMethod, *, return_code: str, reason: str, at: datetime, announce: MethodEvents
) -> bool:
    """A return's policy blocks the method: every new debit to it is refused until the block is lifted. False when
    it was blocked already (the first block stays). Marked on the instance and announced to `announce`;
    `payment_methods_blocked_save` writes the marked methods, many at once."""
    if method.blocked_at is not None:
        return False
    method.blocked_at, method.blocked_reason = at, f"{return_code} {reason}"
    announce(method, EventType.PAYMENT_METHOD_BLOCKED)
    return True


def payment_methods_blocked_save(methods: Sequence[PaymentMethod]) -> None:
    """The blocks `payment_method_block` marked: one UPDATE per (time, reason)."""
    by_block: dict[tuple[datetime, str], list[int]] = {}
    for method in methods:
        by_block.setdefault((method.blocked_at, method.blocked_reason), []).append(method.pk)
    for (blocked_at, blocked_reason), ids in by_block.items():
        PaymentMethod.objects.filter(pk__in=ids).update(blocked_at=blocked_at, blocked_reason=blocked_reason)


def payment_methods_unblock(*, company_id: int, account_hash: str, return_code: str) -> int:
    """The blocks a return with this code placed on the company's saved methods of this account are lifted (with
    the account block of the same return); how many."""
    blocked = PaymentMethod.objects.select_for_update().filter(
        company_id=company_id,
        account_hash=account_hash,
        blocked_at__isnull=False,
        blocked_reason__startswith=f"{return_code} ",
    )
    lifted = 0
    for method in blocked.order_by("pk"):
        method.blocked_at, method.blocked_reason = None, ""
        method.save(update_fields=["blocked_at", "blocked_reason"])
        payment_method_event(method, EventType.PAYMENT_METHOD_UPDATED)
        lifted += 1
    return lifted


# What a notice of change writes on a saved method.
_CORRECTED = (
    "routing_number",
    "account_number",
    "account_hash",
    "account_number_hash",
    "unpadded_account_hash",
    "last_four",
    "account_type",
    "corrected_name",
    "validation_status",
    "validation_method",
    "validated_at",
)
_CORRECTED_KEPT = tuple(name for name in _CORRECTED if name != "account_number")


class MethodCorrections:
    """Notices of change of one part of a file, applied to their saved methods in file order and written together
    (`write`: one UPDATE). The bank's corrected values replace the method's (what is not given stays). Another
    account or routing number is a new account to the rules, so it needs validating again; the holder's name (C04,
    which corrects nothing else) is kept beside the customer's. Each change is announced to `announce`.

    Whether the customer already saved the corrected account is answered from the live accounts of the methods'
    customers, read once and kept as each correction moves a method from one account to another (the methods
    must be locked: payment_methods_lock). A correction onto an account another correction here just left writes
    the ones before it first, so the unique index never sees two live methods of one account."""

    def __init__(self, methods: Iterable[PaymentMethod], *, announce: MethodEvents) -> None:
        self.announce = announce
        self.methods = list(methods)
        self.pending: dict[int, PaymentMethod] = {}
        self._live: dict[tuple[int, int], set[str]] | None = None
        self._left: set[tuple[int, int, str]] = set()  # accounts a pending correction moved a method off

    def _live_accounts(self) -> dict[tuple[int, int], set[str]]:
        if self._live is None:
            self._live = {}
            rows = PaymentMethod.objects.filter(
                customer_id__in={method.customer_id for method in self.methods}, deleted_at__isnull=True
            ).values_list("company_id", "customer_id", "account_hash")
            for company_id, customer_id, account_hash in rows:
                self._live.setdefault((company_id, customer_id), set()).add(account_hash)
        return self._live

    def name(self, method: PaymentMethod, holder_name: str) -> None:
        method.corrected_name = holder_name
        self._pend(method)

    def account(
        self,
        method: PaymentMethod,
        *,
        routing_number: str | None = None,
        account_number: str | None = None,
        account_type: str | None = None,
    ) -> bool:
        """False, and the method left as it is, when the customer already saved the corrected account: that method
        is the one to charge now."""
        if routing_number is None and account_number is None:  # the account type alone: the account stays
            method.account_type = method.account_type if account_type is None else account_type
            self._pend(method)
            return True
        routing = method.routing_number if routing_number is None else routing_number
        account = self._number(method) if account_number is None else account_number
        account_hash = crypto.account_pair_hash(routing, account)
        if account_hash != method.account_hash and not self._move(method, account_hash):
            return False
        method.routing_number = routing
        method.account_number = account
        method.account_hash = account_hash
        method.account_number_hash = crypto.account_number_hash(account)
        method.unpadded_account_hash = crypto.unpadded_account_hash(account)
        method.last_four = account[-4:]
        method.account_type = method.account_type if account_type is None else account_type
        self._pend(method)
        return True

    def _number(self, method: PaymentMethod) -> str:
        """The method's account number; the first one unread reads those of every method here that came without
        theirs, in one query."""
        if _number_unread(method):
            unread = {each.pk: each for each in self.methods if _number_unread(each)}
            for pk, number in PaymentMethod.objects.filter(pk__in=unread).values_list("pk", "account_number"):
                unread[pk].account_number = number
        return method.account_number

    def _move(self, method: PaymentMethod, account_hash: str) -> bool:
        """The customer's live accounts as the method moves to `account_hash`; False when one of them is it."""
        customer = (method.company_id, method.customer_id)
        live = self._live_accounts().setdefault(customer, set())
        if account_hash in live:
            return False
        if (*customer, account_hash) in self._left:
            self.write()  # the method that left it must be written before this one takes it
        if method.deleted_at is None:
            live.discard(method.account_hash)
            live.add(account_hash)
            self._left.add((*customer, method.account_hash))
        _validation_set(method, PaymentMethod.ValidationStatus.UNVALIDATED, kind="")
        return True

    def _pend(self, method: PaymentMethod) -> None:
        self.pending[method.pk] = method
        self.announce(method, EventType.PAYMENT_METHOD_UPDATED)

    def write(self) -> None:
        # A method whose number was never read kept it: its other columns are written.
        pending = list(self.pending.values())
        rows_update(PaymentMethod, [method for method in pending if not _number_unread(method)], _CORRECTED)
        rows_update(PaymentMethod, [method for method in pending if _number_unread(method)], _CORRECTED_KEPT)
        self.pending, self._left = {}, set()


# Validation state of a saved method (CONTRACT 11): what a validation's start and finish write on its method.
_VALIDATION = ("validation_status", "validation_method", "validated_at")


def _validation_set(method: PaymentMethod, status: str, *, kind: str, at: datetime | None = None) -> None:
    method.validation_status = status
    method.validation_method = kind
    method.validated_at = at


def payment_methods_validation_set(changes: Sequence[tuple[PaymentMethod, str, str, datetime | None]]) -> None:
    """The validation state of methods, (method, status, kind, validated_at) each: one UPDATE and one write of their
    events however many (the caller holds the methods' row locks: payment_methods_lock)."""
    for method, status, kind, at in changes:
        _validation_set(method, status, kind=kind, at=at)
    methods = [method for method, *_ in changes]
    rows_update(PaymentMethod, methods, _VALIDATION)
    events_record_many(_method_drafts([(method, EventType.PAYMENT_METHOD_UPDATED) for method in methods]))


def payment_method_validation_pending(method: PaymentMethod, *, kind: str) -> None:
    payment_methods_validation_set([(method, PaymentMethod.ValidationStatus.PENDING, kind, None)])
