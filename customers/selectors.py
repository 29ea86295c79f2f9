"""Reads for customers, always scoped to one company (CONTRACT 3: another company's customer is 404)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import django_filters
from django.db.models import F, FilteredRelation, Q, QuerySet
from rest_framework.exceptions import ValidationError

from accounts.models import Company
from customers.models import Customer
from vault.errors import InvalidFilter, NotFound

# Query parameters of GET /customers that are not filters.
LIST_CONTROL_PARAMS = frozenset({"entityUuid", "page", "pageSize"})


def customers_shown() -> QuerySet[Customer]:
    """Customers as their GET route shows them, of any company: callers scope it (`_customers`) or name the rows.
    The live default method rides along in one LEFT JOIN: at most one row matches (partial unique constraint)."""
    return (
        Customer.objects.select_related("company")
        .annotate(
            live_default=FilteredRelation(
                "payment_methods",
                condition=Q(payment_methods__is_default=True, payment_methods__deleted_at__isnull=True),
            )
        )
        .annotate(default_payment_method_uuid=F("live_default__uuid"))
    )


def _customers(company: Company) -> QuerySet[Customer]:
    return customers_shown().filter(company=company)


def customer_get(*, company: Company, customer_uuid: UUID | str) -> Customer:
    customer = _customers(company).filter(uuid=customer_uuid).first()
    if customer is None:
        raise NotFound("Customer not found")
    return customer


class CustomerFilter(django_filters.FilterSet):
    """GET /customers filters (CONTRACT 4): `name` is a case-insensitive substring of any name field."""

    email = django_filters.CharFilter(field_name="email", lookup_expr="iexact", max_length=254)
    customerId = django_filters.CharFilter(field_name="customer_id", max_length=255)
    status = django_filters.ChoiceFilter(field_name="status", choices=Customer.Status.choices)
    name = django_filters.CharFilter(method="filter_name", max_length=255)

    class Meta:
        model = Customer
        fields: list[str] = []

    def filter_name(self, queryset: QuerySet[Customer], name: str, value: str) -> QuerySet[Customer]:
        return queryset.filter(
            Q(first_name__icontains=value) | Q(last_name__icontains=value) | Q(company_name__icontains=value)
        )


def customer_list(*, company: Company, filters: Any) -> tuple[QuerySet[Customer], QuerySet[Customer]]:
    """(matching customers newest first, all the company's customers) for GET /customers."""
    unknown = sorted(set(filters) - set(CustomerFilter.base_filters) - LIST_CONTROL_PARAMS)
    if unknown:
        raise InvalidFilter(
            "invalid filter", field=unknown[0], known=(*CustomerFilter.base_filters, *LIST_CONTROL_PARAMS)
        )
    everyone = _customers(company)
    filterset = CustomerFilter(filters, queryset=everyone)
    if not filterset.is_valid():
        raise ValidationError(filterset.errors)
    return filterset.qs.order_by("-created_at", "-id"), everyone
