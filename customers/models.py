"""The payer stored once per merchant (SPEC 2.1)."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.utils import timezone
from simple_history.models import HistoricalRecords

from accounts.models import Company, User


def _history_user(request=None, **kwargs) -> User | None:
    # API-key callers are not users (DRF puts an ApiKeyPrincipal on the request); record only real people.
    user = getattr(request, "user", None)
    return user if isinstance(user, User) else None


class Customer(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active"
        INACTIVE = "inactive"

    class HolderType(models.TextChoices):
        CONSUMER = "consumer"
        ORGANIZATION = "organization"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="customers")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    first_name = models.CharField(max_length=100, blank=True)
    last_name = models.CharField(max_length=100, blank=True)
    company_name = models.CharField(max_length=255, blank=True)
    email = models.EmailField(max_length=254, blank=True)
    phone = models.CharField(max_length=20, blank=True)
    account_holder_type = models.CharField(max_length=20, choices=HolderType.choices, blank=True)
    customer_id = models.CharField(max_length=255, blank=True, help_text="The merchant's own identifier; not unique.")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.ACTIVE)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords(get_user=_history_user)

    class Meta:
        indexes = [
            models.Index(fields=["company", "-created_at"], name="customer_company_created"),
            models.Index(fields=["company", "email"], name="customer_company_email"),
            models.Index(fields=["company", "customer_id"], name="customer_company_custid"),
        ]
        # A customer a return policy deactivated goes back to charging only by a Risk decision (backoffice.groups).
        permissions = [("activate_customer", "Can re-activate customers")]

    def __str__(self) -> str:
        return self.holder_name or str(self.uuid)

    @property
    def holder_name(self) -> str:
        """The account holder's name a saved method charges in (CONTRACT 6)."""
        if self.account_holder_type == self.HolderType.ORGANIZATION or not (self.first_name or self.last_name):
            return self.company_name or f"{self.first_name} {self.last_name}".strip()
        return f"{self.first_name} {self.last_name}".strip()
