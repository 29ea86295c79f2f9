"""The return-rate program and account blocks (Nacha 2.17.2, 2.12.4, 2.2.4): blocked accounts, return policies,
alerts, debit holds, the actions taken and the yearly reviews."""

from __future__ import annotations

from uuid import uuid4

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from transactions.models.transaction import Transaction


class AccountBlock(models.Model):
    """A bank account this company may no longer debit (CONTRACT 12, Nacha 2.12.4): placed by a return that says
    the account cannot be debited (R02, R03, ...; transactions.risk.account_rules), keyed on the account
    (routing + account keyed hash) so saved methods and one-off charges alike are refused, until an operator
    lifts it with a reason."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="account_blocks")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    account_hash = models.CharField(max_length=64, help_text="Keyed hash of routing + account.")
    # The entries' own keys (Transaction.routing_number, account_number_hash): `originate` matches them unread.
    account_number_hash = models.CharField(max_length=64, help_text="Keyed hash of the account number.")
    unpadded_account_hash = models.CharField(max_length=64, null=True, blank=True)  # as Transaction's
    routing_number = models.CharField(max_length=9)
    account_last_four = models.CharField(max_length=4)
    return_code = models.CharField(max_length=4)
    transaction = models.ForeignKey(
        Transaction, on_delete=models.PROTECT, related_name="+", help_text="The returned entry that placed it."
    )
    blocked_at = models.DateTimeField()
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    lift_reason = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            # One live block per account and company, also when two return files name it at once.
            models.UniqueConstraint(
                fields=["company", "account_hash"], condition=Q(lifted_at__isnull=True), name="account_block_one_live"
            ),
            models.CheckConstraint(
                condition=Q(lifted_at__isnull=True) | ~Q(lift_reason=""), name="account_block_lift_has_reason"
            ),
        ]
        permissions = [("lift_account_block", "Can lift account blocks")]

    def __str__(self) -> str:
        return f"****{self.account_last_four} blocked after {self.return_code}"


class ReturnPolicy(models.Model):
    """A company's own actions for one return code; a code without a row follows RETURN_CODES' default actions."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="return_policies")
    return_code = models.CharField(max_length=4)
    block_method = models.BooleanField(default=False, help_text="Block the saved method that was debited.")
    deactivate_customer = models.BooleanField(default=False)
    hold_customer_debits = models.BooleanField(default=False, help_text="Hold that customer's new debits (RTN).")
    notify = models.BooleanField(default=False, help_text="Write a notice alert for the company's staff.")

    class Meta:
        verbose_name_plural = "return policies"
        constraints = [models.UniqueConstraint(fields=["company", "return_code"], name="return_policy_company_code")]

    def __str__(self) -> str:
        return f"{self.return_code} policy"


class RiskAlert(models.Model):
    """A return-rate level change of one category (kept for the evidence report), or a policy notice."""

    class Level(models.TextChoices):
        WARNING = "warning"
        BREACHED = "breached"
        CLEARED = "cleared"
        NOTICE = "notice"  # a return whose policy says notify

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="risk_alerts")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    category = models.CharField(max_length=16, help_text="unauthorized, administrative, overall, or a return code.")
    level = models.CharField(max_length=8, choices=Level.choices)
    returns = models.PositiveIntegerField(default=0)
    debits = models.PositiveIntegerField(default=0)
    rate = models.FloatField(default=0)
    threshold = models.FloatField(default=0)
    as_of = models.DateField(help_text="Last day of the rolling window the rate was computed over.")
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["company", "category", "-created_at"], name="risk_alert_company_category")]

    def __str__(self) -> str:
        return f"{self.category} {self.level}"


class DebitHold(models.Model):
    """While active, new debits of the company (customer empty) or of one customer are HELD with holdCode RTN."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="debit_holds")
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    reason = models.CharField(max_length=255)
    alert = models.ForeignKey(RiskAlert, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["company"],
                condition=Q(customer__isnull=True, lifted_at__isnull=True),
                name="debit_hold_one_active_per_company",
            ),
            models.UniqueConstraint(
                fields=["company", "customer"],
                condition=Q(customer__isnull=False, lifted_at__isnull=True),
                name="debit_hold_one_active_per_customer",
            ),
        ]
        indexes = [models.Index(fields=["company", "lifted_at"], name="debit_hold_company_lifted")]
        permissions = [("lift_debithold", "Can lift debit holds")]

    def __str__(self) -> str:
        return self.reason


class RiskAction(models.Model):
    """Every action the return program took (policy actions on a return, holds on a breach): the evidence log."""

    class Kind(models.TextChoices):
        BLOCK_METHOD = "block_method"
        DEACTIVATE_CUSTOMER = "deactivate_customer"
        HOLD_CUSTOMER_DEBITS = "hold_customer_debits"
        NOTIFY = "notify"
        HOLD_COMPANY_DEBITS = "hold_company_debits"
        BLOCK_ACCOUNT = "block_account"
        LIFT_ACCOUNT_BLOCK = "lift_account_block"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="risk_actions")
    action = models.CharField(max_length=24, choices=Kind.choices)
    return_code = models.CharField(max_length=4, blank=True)
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    alert = models.ForeignKey(RiskAlert, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    detail = models.CharField(max_length=255, blank=True)
    taken_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["company", "-taken_at"], name="risk_action_company_taken")]


class RiskReview(models.Model):
    """The yearly review of a company's fraud-monitoring program (Nacha 2.2.4): who, when, notes."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="risk_reviews")
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reviewed_on = models.DateField()
    notes = models.TextField(blank=True)
    # The fraud-monitoring rules in force when the review was signed (transactions.risk.monitoring.fraud_rules).
    rules = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"review of {self.reviewed_on}"


class DailyVolume(models.Model):
    """One of up to 16 rows whose sum is a company's charged volume of one Eastern day (the daily volume limit,
    CONTRACT 6): the amounts of the day's transactions that can move money (neither Declined, Voided nor Rejected;
    account validations' entries left out). Kept by triggers on the transaction table on PostgreSQL (transactions
    0024), so a charge under a limit reads a few rows, not the day's entries; as reporting.TransactionCount, several
    rows a day so that concurrent charges of one merchant add to different rows (chosen by backend)."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField(help_text="The Eastern day the transactions were created on.")
    slot = models.PositiveSmallIntegerField()
    amount = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["company", "day", "slot"], name="daily_volume_company_day_slot")]

    def __str__(self) -> str:
        return f"{self.company_id}/{self.day}/{self.slot}: {self.amount}"
