"""The record an Idempotency-Key keeps. Its table was made by the transactions app and keeps its name."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from accounts.models import Company


class IdempotencyRecord(models.Model):
    """The first response to an `Idempotency-Key`, replayed for 24 hours (CONTRACT 6), then purged.
    `request_hash` is a keyed HMAC of the body with card and account numbers keyed-hashed and the cvv left out.
    `transaction` is the charge a PUT /transactions made (named by label: plumbing imports no domain app)."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    transaction = models.ForeignKey(
        "transactions.Transaction", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "transactions_idempotencyrecord"
        constraints = [models.UniqueConstraint(fields=["company", "key"], name="idempotency_company_key")]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_at")]  # purge_expired
