"""Saved bank accounts (the vault, SPEC 2.2): account numbers encrypted, duplicates found by keyed hash."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from vault.fields import EncryptedTextField
from vault.records import mask


class PaymentMethod(models.Model):
    class Type(models.TextChoices):
        BANK = "bank"

    class AccountType(models.TextChoices):
        CHECKING = "Checking"
        SAVINGS = "Savings"

    class ValidationStatus(models.TextChoices):
        UNVALIDATED = "unvalidated"
        PENDING = "pending"
        VALIDATED = "validated"
        FAILED = "failed"

    class ValidationMethod(models.TextChoices):
        PRENOTE = "prenote"
        MICRODEPOSITS = "microdeposits"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="payment_methods")
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="payment_methods")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    type = models.CharField(max_length=10, choices=Type.choices, default=Type.BANK)
    account_type = models.CharField(max_length=10, choices=AccountType.choices)
    account_number = EncryptedTextField()
    account_hash = models.CharField(max_length=64, editable=False, help_text="Keyed hash of routing + account.")
    # As Transaction.account_number_hash (crypto.account_number_hash): a charge's debit rules find the account's
    # returned debits in the same statement that reads the method, without decrypting it first.
    account_number_hash = models.CharField(max_length=64, editable=False, help_text="Keyed hash of the account number.")
    # crypto.unpadded_account_hash: the number's hash without its leading zeros, only when it has some (CONTRACT 12's
    # debit rules ignore them). Nullable without a default, so adding it never rebuilds this table on SQLite.
    unpadded_account_hash = models.CharField(max_length=64, null=True, blank=True, editable=False)
    last_four = models.CharField(max_length=4)
    routing_number = models.CharField(max_length=9)
    nickname = models.CharField(max_length=100, blank=True)
    is_default = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True)
    blocked_at = models.DateTimeField(null=True, blank=True)
    blocked_reason = models.CharField(max_length=255, blank=True)
    # The holder's name as the RDFI corrected it (NOC C04): charges go out in it instead of the customer's name.
    # Nullable without a default, so adding it never rebuilds this table on SQLite.
    corrected_name = models.CharField(max_length=22, null=True, blank=True)
    # Nacha WEB debit account validation (CONTRACT 11): the state of the account's latest validation.
    validation_status = models.CharField(
        max_length=12, choices=ValidationStatus.choices, default=ValidationStatus.UNVALIDATED
    )
    validation_method = models.CharField(max_length=14, choices=ValidationMethod.choices, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["company", "customer"],
                condition=Q(is_default=True, deleted_at__isnull=True),
                name="payment_method_one_default_per_customer",
            ),
            models.UniqueConstraint(
                fields=["company", "customer", "account_hash"],
                condition=Q(deleted_at__isnull=True),
                name="payment_method_unique_account_per_customer",
            ),
            # A method saved without it would escape the re-initiation rule (CONTRACT 12) unnoticed.
            models.CheckConstraint(condition=~Q(account_number_hash=""), name="payment_method_account_number_hash_set"),
        ]
        indexes = [models.Index(fields=["company", "customer", "created_at"], name="pm_company_customer_created")]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        return f"{self.account_type} {mask(self.last_four)}"
