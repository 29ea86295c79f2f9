"""Payouts (CONTRACT 18): the company's own bank account its balance is paid out to. Each version of the account is a
row of its own (its history); the current one has no `replaced_at`, one per company in the database."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from transactions.models import AccountValidation
from vault.fields import EncryptedTextField
from vault.records import mask


class PayoutAccount(models.Model):
    class AccountType(models.TextChoices):
        CHECKING = "Checking"
        SAVINGS = "Savings"

    class HolderType(models.TextChoices):
        BUSINESS = "business"  # payouts are CCD credits
        CONSUMER = "consumer"  # a sole proprietor's own account: PPD

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="payout_accounts", db_index=False)
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    routing_number = models.CharField(max_length=9)
    account_number = EncryptedTextField()
    # Keyed hash of routing + account (crypto.account_pair_hash): the key of the account's validations.
    account_hash = models.CharField(max_length=64, editable=False)
    last_four = models.CharField(max_length=4)
    account_type = models.CharField(max_length=8, choices=AccountType.choices)
    holder_name = models.CharField(max_length=100)
    holder_type = models.CharField(max_length=8, choices=HolderType.choices, default=HolderType.BUSINESS)
    # The prenote that validates this account (none when the company had validated it, or one was in flight).
    validation = models.ForeignKey(
        AccountValidation, on_delete=models.PROTECT, null=True, blank=True, related_name="+", db_index=False
    )
    # No payout goes to the account before this moment: 3 banking days after the account changed (none for a
    # company's first account, nor for a new name on the same account).
    cooldown_ends_at = models.DateTimeField(null=True, blank=True)
    # A payout returned R02/R03/R04/R16/R20 stops the account until it is changed.
    blocked_at = models.DateTimeField(null=True, blank=True)
    blocked_reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    created_by = models.CharField(max_length=64, blank=True, help_text="The API key or user that set it.")
    replaced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["company"], condition=Q(replaced_at__isnull=True), name="payout_account_one_current"
            ),
            models.CheckConstraint(condition=~Q(account_hash=""), name="payout_account_hash_set"),
        ]
        indexes = [models.Index(fields=["company", "created_at"], name="payout_account_company_created")]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        return f"{self.account_type} {mask(self.last_four)}"
