"""Reads for saved payment methods, scoped to one company and one customer; deleted methods are never read."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet

from accounts.models import Company
from customers.models import Customer
from payments.models import PaymentMethod
from vault.errors import NotFound


def payment_method_list(*, company: Company, customer: Customer) -> QuerySet[PaymentMethod]:
    return (
        PaymentMethod.objects.filter(company=company, customer=customer, deleted_at__isnull=True)
        .select_related("customer")
        .order_by("created_at", "id")
    )


def payment_method_get(*, company: Company, customer: Customer, payment_method_uuid: UUID | str) -> PaymentMethod:
    """A live method of this customer; another customer's or company's method is 404 as if absent (CONTRACT 4)."""
    method = payment_method_list(company=company, customer=customer).filter(uuid=payment_method_uuid).first()
    if method is None:
        raise NotFound("Payment method not found")
    return method
