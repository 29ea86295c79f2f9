"""Reads of schedules, scoped to one company: another company's schedule is 404."""

from __future__ import annotations

from uuid import UUID

from django.db.models import QuerySet

from accounts.models import Company
from schedules.models import Schedule
from vault.errors import NotFound


def schedule_list(*, company: Company, filters=None) -> QuerySet[Schedule]:
    schedules = Schedule.objects.filter(company=company).select_related("customer", "payment_method", "mandate")
    if filters is not None and filters.get("customerUuid"):
        schedules = schedules.filter(customer__uuid=filters["customerUuid"])
    if filters is not None and filters.get("status"):
        schedules = schedules.filter(status=filters["status"])
    return schedules.order_by("-created_at", "-id")


def schedule_get(*, company: Company, schedule_uuid: UUID | str) -> Schedule:
    schedule = schedule_list(company=company).filter(uuid=schedule_uuid).first()
    if schedule is None:
        raise NotFound("Schedule not found")
    return schedule
