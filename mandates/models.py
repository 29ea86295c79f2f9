"""A payer's authorization of debits (CONTRACT 14, Nacha 2026): its wording and hash, how and from where it was
accepted, its terms, and its end. Kept until `retain_until`, two years after it ends: the database refuses to delete
it before (mandates 0001, a trigger on PostgreSQL and SQLite)."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from payments.models import PaymentMethod
from vault.fields import EncryptedBytesField

SEC_CODES = ("PPD", "WEB", "TEL", "CCD")


class Mandate(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        REVOKED = "revoked"

    class Type(models.TextChoices):
        SINGLE = "single"
        RECURRING = "recurring"

    class Channel(models.TextChoices):
        ONLINE = "online"
        PAPER = "paper"
        PHONE = "phone"

    class Frequency(models.TextChoices):
        WEEKLY = "weekly"
        BIWEEKLY = "biweekly"
        MONTHLY = "monthly"
        IRREGULAR = "irregular"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="mandates", db_index=False)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="mandates", db_index=False)
    payment_method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="mandates")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.ACTIVE)
    sec_code = models.CharField(max_length=3, choices=[(code, code) for code in SEC_CODES])
    type = models.CharField(max_length=9, choices=Type.choices)
    channel = models.CharField(max_length=6, choices=Channel.choices)
    accepted_at = models.DateTimeField()
    text = models.TextField(help_text="The authorization wording the payer accepted, as sent.")
    text_sha256 = models.CharField(max_length=64, editable=False)
    max_amount = models.BigIntegerField(null=True, blank=True, help_text="Cents; a debit above it is refused.")
    frequency = models.CharField(max_length=9, choices=Frequency.choices, blank=True)
    ip_address = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=1000, blank=True)
    # The evidence file (a signed form, a recording): its bytes, encrypted at rest like account numbers.
    evidence = EncryptedBytesField(null=True, blank=True, editable=False)
    evidence_sha256 = models.CharField(max_length=64, blank=True, editable=False)
    evidence_bytes = models.PositiveIntegerField(null=True, blank=True, editable=False)
    # When a single mandate's one debit was made (a recurring one is never used up).
    used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_reason = models.CharField(max_length=255, blank=True, editable=False)
    revoked_by = models.CharField(max_length=64, blank=True, editable=False)
    retain_until = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        # Revoking is the one change the back office makes (transactions/mandates/admin.py); the form stays read-only.
        permissions = [("revoke_mandate", "Can revoke mandates")]
        indexes = [
            models.Index(fields=["company", "customer", "created_at"], name="mandate_company_customer"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(sec_code__in=SEC_CODES), name="mandate_sec_code_known"),
            models.CheckConstraint(
                condition=(
                    Q(status="active", revoked_at__isnull=True, retain_until__isnull=True)
                    | (
                        Q(status="revoked", revoked_at__isnull=False, retain_until__isnull=False)
                        & ~Q(revoked_reason="")
                    )
                ),
                name="mandate_revocation_complete",
            ),
            models.CheckConstraint(
                condition=~Q(channel="online") | (Q(ip_address__isnull=False) & ~Q(user_agent="")),
                name="mandate_online_evidence",
            ),
            models.CheckConstraint(condition=Q(type="single") | Q(used_at__isnull=True), name="mandate_used_if_single"),
            models.CheckConstraint(
                condition=Q(max_amount__isnull=True) | Q(max_amount__gt=0), name="mandate_max_amount_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"mandate {self.uuid} ({self.status})"

    @property
    def is_recurring(self) -> bool:
        return self.type == self.Type.RECURRING
