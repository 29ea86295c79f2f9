"""Recurring debits on a schedule (CONTRACT 14): each date's debit is made once, by `run_schedules`, under the
schedule's recurring mandate. `ScheduledDebit` is the once: unique per (schedule, date) in the database."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from mandates.models import Mandate
from payments.models import PaymentMethod
from transactions.models import Purpose, Transaction


class Schedule(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        PAUSED = "paused"
        CANCELLED = "cancelled"
        STOPPED = "stopped"  # by the service: its mandate was revoked or its method blocked
        COMPLETED = "completed"

    class Interval(models.TextChoices):
        WEEKLY = "weekly"
        BIWEEKLY = "biweekly"
        MONTHLY = "monthly"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="schedules", db_index=False)
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="schedules", db_index=False)
    payment_method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="schedules")
    mandate = models.ForeignKey(Mandate, on_delete=models.PROTECT, related_name="schedules")
    amount = models.BigIntegerField()
    interval = models.CharField(max_length=8, choices=Interval.choices)
    day_of_month = models.PositiveSmallIntegerField(null=True, blank=True)
    start_date = models.DateField()
    end_date = models.DateField(null=True, blank=True)
    count = models.PositiveIntegerField(null=True, blank=True)
    # "none": its debits are never re-presented automatically (CONTRACT 15); null follows the company's policy.
    retry_policy = models.CharField(max_length=4, null=True, blank=True)
    # What each debit pays for (CONTRACT 11): a WEB debit for goods carries PURCHASE (ACH review 2026-12-07 M5).
    purpose = models.CharField(max_length=10, choices=Purpose.choices, null=True, blank=True)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.ACTIVE)
    status_reason = models.CharField(max_length=255, blank=True)
    # The next date (by its number, 0 first) whose debit is still to be made, and the next still to be announced.
    next_index = models.PositiveIntegerField(default=0, editable=False)
    next_notice_index = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        permissions = [("stop_schedule", "Can stop schedules")]
        indexes = [
            models.Index(fields=["company", "created_at"], name="schedule_company_created"),
            models.Index(fields=["status"], condition=Q(status="active"), name="schedule_active"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="schedule_amount_positive"),
            models.CheckConstraint(
                condition=Q(day_of_month__isnull=True) | Q(day_of_month__gte=1, day_of_month__lte=31),
                name="schedule_day_of_month_range",
            ),
            models.CheckConstraint(condition=Q(count__isnull=True) | Q(count__gte=1), name="schedule_count_positive"),
            models.CheckConstraint(
                condition=Q(end_date__isnull=True) | Q(count__isnull=True), name="schedule_end_date_or_count"
            ),
            models.CheckConstraint(
                condition=Q(retry_policy__isnull=True) | Q(retry_policy="none"), name="schedule_retry_policy_known"
            ),
        ]

    def __str__(self) -> str:
        return f"schedule {self.uuid} ({self.status})"


class ScheduledDebit(models.Model):
    """The debit made for one date of a schedule: one per (schedule, date), whatever runs at once."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    schedule = models.ForeignKey(Schedule, on_delete=models.PROTECT, related_name="debits", db_index=False)
    date = models.DateField(help_text="The schedule's date (rolled to a banking day).")
    transaction = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="scheduled_debit")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["schedule", "date"], name="scheduled_debit_once_per_date"),
        ]
