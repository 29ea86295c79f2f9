"""Writes for customers: create, update, activate/deactivate (SPEC 2.1, 4.1; CONTRACT 4)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from customers.selectors import customer_get, customers_shown
from customers.serializers import CustomerOutput
from events.outbox import EventDraft, event_record, events_record_many
from events.types import EventType
from vault.error_codes import ErrorCode
from vault.errors import ApiError, NotFound

# Digits only, with an optional leading "+" for the country code (E.164 allows at most 15 digits).
PHONE_PATTERN = re.compile(r"^\+?[0-9]{7,15}$")

# Wire name -> model field for every contact/profile field a caller may set.
CUSTOMER_FIELDS: dict[str, str] = {
    "firstName": "first_name",
    "lastName": "last_name",
    "companyName": "company_name",
    "email": "email",
    "phone": "phone",
    "accountHolderType": "account_holder_type",
    "customerId": "customer_id",
    "status": "status",
}


def customer_holder_validate(*, account_holder_type: str, first_name: str, last_name: str, company_name: str) -> str:
    """SPEC 4.1 rules 1-2; returns the holder type to store (inferred when the caller omitted it)."""
    if account_holder_type == Customer.HolderType.ORGANIZATION:
        if not company_name:
            raise ApiError(
                "companyName is required when accountHolderType is organization",
                field="companyName",
                code=ErrorCode.REQUIRED,
            )
        return account_holder_type
    if account_holder_type == Customer.HolderType.CONSUMER:
        missing = "firstName" if not first_name else "lastName" if not last_name else None
        if missing:
            raise ApiError(
                f"{missing} is required when accountHolderType is consumer", field=missing, code=ErrorCode.REQUIRED
            )
        return account_holder_type
    if first_name and last_name:
        return Customer.HolderType.CONSUMER
    if company_name:
        return Customer.HolderType.ORGANIZATION
    raise ApiError("Provide firstName and lastName, or companyName", code=ErrorCode.REQUIRED)


@transaction.atomic
def customer_create(
    *,
    company: Company,
    first_name: str = "",
    last_name: str = "",
    company_name: str = "",
    email: str = "",
    phone: str = "",
    account_holder_type: str = "",
    customer_id: str = "",
) -> Customer:
    """Always a new customer: repeating a request makes a second one (SPEC 2.1 rule 1)."""
    holder_type = customer_holder_validate(
        account_holder_type=account_holder_type, first_name=first_name, last_name=last_name, company_name=company_name
    )
    customer = Customer.objects.create(
        company=company,
        first_name=first_name,
        last_name=last_name,
        company_name=company_name,
        email=email,
        phone=phone,
        account_holder_type=holder_type,
        customer_id=customer_id,
    )
    customer_event(customer, EventType.CUSTOMER_CREATED)
    return customer


def customer_event(customer: Customer, type: str) -> None:
    """The outbox event for a change to `customer` (call inside the change's transaction): the customer as
    GET /customers/{uuid} shows it."""
    shown = customer_get(company=customer.company, customer_uuid=customer.uuid)
    event_record(company_id=customer.company_id, type=type, object_uuid=customer.uuid, data=CustomerOutput(shown).data)


def customer_lock(*, company_id: int, customer_id: int) -> Customer:
    """The company's customer row, locked until the transaction ends: writes to one customer go one at a time."""
    locked = Customer.objects.select_for_update().filter(company_id=company_id, pk=customer_id).first()
    if locked is None:
        raise NotFound("Customer not found")
    return locked


@transaction.atomic
def customer_update(*, customer: Customer, changes: dict[str, Any]) -> Customer:
    """Apply `changes` (model field names) and save only what changed; the result must still be a valid holder."""
    unknown = sorted(set(changes) - set(CUSTOMER_FIELDS.values()))
    if unknown:
        raise ValueError(f"not customer fields: {', '.join(unknown)}")
    locked = customer_lock(company_id=customer.company_id, customer_id=customer.pk)
    changed = [name for name, value in changes.items() if getattr(locked, name) != value]
    for name in changed:
        setattr(locked, name, changes[name])
    if changed:
        holder_type = customer_holder_validate(
            account_holder_type=locked.account_holder_type,
            first_name=locked.first_name,
            last_name=locked.last_name,
            company_name=locked.company_name,
        )
        if holder_type != locked.account_holder_type:
            locked.account_holder_type = holder_type
            changed.append("account_holder_type")
        locked.save(update_fields=[*changed, "updated_at"])
        deactivated = "status" in changed and locked.status == Customer.Status.INACTIVE
        customer_event(locked, EventType.CUSTOMER_DEACTIVATED if deactivated else EventType.CUSTOMER_UPDATED)
    return locked


def customer_set_status(*, customer: Customer, status: str) -> Customer:
    return customer_update(customer=customer, changes={"status": status})


def customers_deactivate(*, ids: Iterable[int]) -> set[int]:
    """`customer_deactivate` for many customers at once (a return file's policies): the active ones among `ids` are
    locked in id order, made inactive in one UPDATE and announced together; the ids it deactivated."""
    active = Customer.objects.select_for_update().filter(pk__in=set(ids), status=Customer.Status.ACTIVE).order_by("pk")
    deactivated = list(active.values_list("pk", flat=True))
    if not deactivated:
        return set()
    Customer.objects.filter(pk__in=deactivated).update(status=Customer.Status.INACTIVE, updated_at=timezone.now())
    shown = list(customers_shown().filter(pk__in=deactivated).order_by("pk"))
    events_record_many(
        [
            EventDraft(
                company_id=customer.company_id,
                type=EventType.CUSTOMER_DEACTIVATED,
                object_uuid=customer.uuid,
                data=data,
            )
            for customer, data in zip(shown, CustomerOutput(shown, many=True).data, strict=True)
        ]
    )
    return set(deactivated)


def customer_activate(*, customer: Customer) -> Customer:
    return customer_set_status(customer=customer, status=Customer.Status.ACTIVE)


def customer_deactivate(*, customer: Customer) -> Customer:
    return customer_set_status(customer=customer, status=Customer.Status.INACTIVE)
