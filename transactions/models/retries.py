"""Automatic re-presentment (CONTRACT 15): a company's retry policy and each attempt it schedules for a returned
debit. The attempt is made by the same code as POST /transactions/{uuid}/retry (transactions.charges.retry)."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from transactions.models.transaction import Transaction

MAX_BANKING_DAYS = 30
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")


class RetrySchedule(models.TextChoices):
    AFTER_BANKING_DAYS = "after_banking_days"
    WEEKDAY = "weekday"
    DAYS_OF_MONTH = "days_of_month"
    LAST_BANKING_DAY_OF_MONTH = "last_banking_day_of_month"


class RetryPolicy(models.Model):
    """One row per company that set one (none: off). `weekday` is 0 for Monday to 4 for Friday."""

    company = models.OneToOneField(Company, on_delete=models.CASCADE, primary_key=True, related_name="retry_policy")
    enabled = models.BooleanField(default=False)
    attempts = models.PositiveSmallIntegerField(default=2)
    schedule_type = models.CharField(max_length=26, choices=RetrySchedule.choices)
    banking_days = models.PositiveSmallIntegerField(null=True, blank=True)
    weekday = models.PositiveSmallIntegerField(null=True, blank=True)
    days_of_month = models.JSONField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "retry policies"
        constraints = [
            models.CheckConstraint(condition=Q(attempts__in=(1, 2)), name="retry_policy_attempts_1_or_2"),
            models.CheckConstraint(
                condition=Q(
                    schedule_type=RetrySchedule.AFTER_BANKING_DAYS,
                    banking_days__gte=1,
                    banking_days__lte=MAX_BANKING_DAYS,
                )
                | Q(schedule_type=RetrySchedule.WEEKDAY, weekday__gte=0, weekday__lte=len(WEEKDAYS) - 1)
                | Q(schedule_type=RetrySchedule.DAYS_OF_MONTH, days_of_month__isnull=False)
                | Q(schedule_type=RetrySchedule.LAST_BANKING_DAY_OF_MONTH),
                name="retry_policy_schedule_complete",
            ),
        ]

    def __str__(self) -> str:
        return f"retry policy of {self.company_id} ({'on' if self.enabled else 'off'})"


class RetryAttempt(models.Model):
    """The next presentment of a returned debit: scheduled, then created (a new debit) or cancelled or skipped with
    the reason. `returned` is the presentment whose return scheduled it (one attempt each); `original` the first
    presentment, whose count of 2 the manual route shares."""

    class State(models.TextChoices):
        SCHEDULED = "scheduled"
        CREATED = "created"
        CANCELLED = "cancelled"
        SKIPPED = "skipped"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    original = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="+", db_index=False)
    returned = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="retry_attempt")
    number = models.PositiveSmallIntegerField()
    scheduled_for = models.DateField()
    state = models.CharField(max_length=9, choices=State.choices, default=State.SCHEDULED)
    reason = models.CharField(max_length=32, blank=True)
    presentment = models.OneToOneField(
        Transaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+", help_text="The debit made."
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["original", "number"], name="retry_attempt_original_number"),
            models.CheckConstraint(condition=Q(number__in=(1, 2)), name="retry_attempt_number_1_or_2"),
            models.CheckConstraint(
                condition=Q(state="created", presentment__isnull=False) | ~Q(state="created"),
                name="retry_attempt_created_has_debit",
            ),
        ]
        indexes = [
            models.Index(fields=["scheduled_for"], condition=Q(state="scheduled"), name="retry_attempt_due"),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.original_id}: {self.state}"
