"""Reads of mandates, scoped to one company: another company's mandate is 404 as if it did not exist."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet

from accounts.models import Company
from customers.models import Customer
from mandates.errors import MandateNotFound
from mandates.models import Mandate


def mandate_list(*, company: Company, customer: Customer | None = None) -> QuerySet[Mandate]:
    mandates = Mandate.objects.filter(company=company).select_related("customer", "payment_method").defer("evidence")
    if customer is not None:
        mandates = mandates.filter(customer=customer)
    return mandates.order_by("-created_at", "-id")


def mandate_get(*, company: Company, mandate_uuid: UUID | str, field: str | None = None) -> Mandate:
    mandate = mandate_list(company=company).filter(uuid=mandate_uuid).first()
    if mandate is None:
        raise MandateNotFound(field=field)
    return mandate


def mandate_evidence(mandate: Mandate) -> bytes | None:
    """The evidence file (decrypted), or None: read only by the proof's evidence route."""
    return Mandate.objects.filter(pk=mandate.pk, company_id=mandate.company_id).values_list("evidence", flat=True)[0]
