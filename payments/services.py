"""Writes for saved bank accounts: create, set default, delete.

Default-flag changes lock the customer row first, then the method (STYLE lock order), so "exactly one
default per customer" holds under concurrency; the partial unique constraints keep the promise in the database."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from customers.services import customer_lock
from events.services import event_record
from events.types import EventType
from payments import numbers
from payments.models import PaymentMethod
from payments.serializers import PaymentMethodOutput
from vault import crypto
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Conflict, NotFound
from vault.records import mask


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


def payment_method_event(method: PaymentMethod, type: str) -> None:
    """The outbox event for a change to a saved method (call inside the change's transaction): the method as
    its GET route shows it, with the account number masked."""
    data = PaymentMethodOutput(method).data
    data["accountNumber"] = mask(method.last_four)
    event_record(company_id=method.company_id, type=type, object_uuid=method.uuid, data=data)


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


# Validation state of a saved method (CONTRACT 11). Each change is one small function so a later state machine
# (issue 15) can own them; callers hold the method's row lock and save `VALIDATION_FIELDS`.
VALIDATION_FIELDS = ("validation_status", "validation_method", "validated_at")


def payment_method_validation_pending(method: PaymentMethod, *, kind: str) -> None:
    method.validation_status = PaymentMethod.ValidationStatus.PENDING
    method.validation_method = kind
    method.validated_at = None


def payment_method_validation_passed(method: PaymentMethod, *, kind: str, at: datetime) -> None:
    method.validation_status = PaymentMethod.ValidationStatus.VALIDATED
    method.validation_method = kind
    method.validated_at = at


def payment_method_validation_failed(method: PaymentMethod, *, kind: str) -> None:
    method.validation_status = PaymentMethod.ValidationStatus.FAILED
    method.validation_method = kind
    method.validated_at = None


def payment_method_validation_reset(method: PaymentMethod) -> None:
    """A new account or routing number is a new account to the rules: it needs validating again."""
    method.validation_status = PaymentMethod.ValidationStatus.UNVALIDATED
    method.validation_method = ""
    method.validated_at = None
