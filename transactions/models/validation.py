"""Account validation (CONTRACT 11, 12): a prenote or a pair of micro-deposits."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from payments.models import PaymentMethod


class AccountValidation(models.Model):
    """One validation of an account (CONTRACT 11, 12): a prenote or a pair of micro-deposits with their offset,
    of a saved method, or (a prenote the `prenote_first` policy sends for a one-off WEB debit) of the account alone.
    What it proves belongs to the account (`account_hash`) within the company. Its entries are ordinary
    transactions (`Transaction.account_validation`) that originate, settle and come back like any other; the
    micro-deposit amounts are kept only as a keyed hash and never shown to the merchant."""

    class Kind(models.TextChoices):
        PRENOTE = "prenote"
        MICRODEPOSITS = "microdeposits"

    class State(models.TextChoices):
        PENDING = "pending"
        VALIDATED = "validated"
        FAILED = "failed"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    payment_method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, null=True, blank=True, related_name="validations"
    )
    # Keyed hash of routing + account number (crypto.account_pair_hash), as PaymentMethod.account_hash: the gate
    # of every WEB debit asks whether the company validated this account, saved or not.
    account_hash = models.CharField(max_length=64, blank=True, help_text="Keyed hash of routing + account.")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=14, choices=Kind.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    effective_date = models.DateField(help_text="The effective date of its entries.")
    amounts_hash = models.CharField(max_length=64, blank=True, help_text="Keyed hash of the micro-deposit amounts.")
    attempts = models.PositiveSmallIntegerField(default=0)
    expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True)
    failure_reason = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            # One validation in flight per method, also under concurrent requests.
            models.UniqueConstraint(
                fields=["company", "payment_method"],
                condition=Q(state="pending"),
                name="account_validation_one_pending",
            ),
            # And one in flight per account validated without a saved method.
            models.UniqueConstraint(
                fields=["company", "account_hash"],
                condition=Q(state="pending", payment_method__isnull=True),
                name="account_validation_one_pending_account",
            ),
        ]
        indexes = [
            models.Index(fields=["state", "kind"], name="account_validation_state_kind"),
            models.Index(fields=["company", "account_hash"], name="account_validation_account"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.state} ({self.uuid})"
