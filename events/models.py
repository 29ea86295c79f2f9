"""The event outbox (CONTRACT 9): an Event row is written in the same database transaction as the change it
reports (marked `fanout_pending` when its company has live endpoints); a worker fans it out after commit into
one Delivery row per subscribed endpoint, then sends them and records every attempt. Every table carries
company_id and every unique constraint includes it (CONTRACT 8)."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from vault.fields import EncryptedTextField


class ObjectSequence(models.Model):
    """The last event sequence number handed out for one object; bumped by an upsert, so concurrent writers on
    one object queue on this row instead of colliding."""

    # No index of its own: the unique (company, object) below leads with it.
    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+", db_index=False)
    object_uuid = models.UUIDField()
    last_sequence = models.PositiveBigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["company", "object_uuid"], name="event_sequence_object")]


class Event(models.Model):
    # No index of its own: every (company, ...) index below leads with it, and every event written writes each.
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    uuid = models.UUIDField(default=uuid4, editable=False)
    type = models.CharField(max_length=64)
    object_uuid = models.UUIDField()
    sequence = models.PositiveBigIntegerField()
    data = models.JSONField(help_text="The object as its own GET route shows it (account numbers masked).")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    fanout_pending = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Its deliveries are still to be made by a worker (N5: never inside the writer's transaction).",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["company", "uuid"], name="event_company_uuid"),
            models.UniqueConstraint(fields=["company", "object_uuid", "sequence"], name="event_object_sequence"),
        ]
        indexes = [
            # GET /events reads newest first by id (ids grow with time), with or without a type filter.
            models.Index(fields=["company", "-id"], name="event_company_id"),
            models.Index(fields=["company", "type", "-id"], name="event_company_type_id"),
            models.Index(fields=["id"], condition=Q(fanout_pending=True), name="event_fanout_pending"),
            # created_at (the purge's and the replay's range): on PostgreSQL a BRIN index, events/0005.
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.object_uuid} #{self.sequence}"


class WebhookEndpoint(models.Model):
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    uuid = models.UUIDField(default=uuid4, editable=False)
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=255, blank=True)
    event_types = models.JSONField(default=list, help_text='Event types to send; "*" for all.')
    enabled = models.BooleanField(default=True)
    secret = EncryptedTextField(help_text="Standard Webhooks signing secret (whsec_...), encrypted at rest.")
    previous_secret = EncryptedTextField(null=True, blank=True)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    failing_since = models.DateTimeField(
        null=True, blank=True, help_text="First failed attempt since the last success."
    )
    disabled_at = models.DateTimeField(null=True, blank=True)
    disabled_reason = models.CharField(max_length=255, blank=True)
    needs_attention = models.BooleanField(
        default=False, help_text="Disabled by the platform (410 or failing for days); the merchant must act."
    )
    # Fair delivery (N6): one delivery in flight per endpoint (a lease on the endpoint), endpoints served
    # least recently first, and a circuit breaker that stops sending after consecutive failures.
    lease_token = models.CharField(max_length=32, blank=True)
    leased_until = models.DateTimeField(null=True, blank=True)
    last_claimed_at = models.DateTimeField(null=True, blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    circuit_open_until = models.DateTimeField(
        null=True, blank=True, help_text="Circuit open: nothing is sent before this; then one trial delivery."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["company", "uuid"], name="webhook_endpoint_company_uuid"),
            models.UniqueConstraint(
                fields=["company", "url"], condition=Q(deleted_at__isnull=True), name="webhook_endpoint_company_url"
            ),
        ]
        indexes = [models.Index(fields=["company", "created_at"], name="webhook_endpoint_company")]

    def __str__(self) -> str:
        return self.url


class Delivery(models.Model):
    """One event owed to one endpoint: the work queue the workers claim (a lease, so no two workers send it
    at once) until it is delivered or given up."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"
        CANCELLED = "cancelled"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    leased_until = models.DateTimeField(null=True, blank=True)
    lease_token = models.CharField(max_length=32, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    replayed = models.BooleanField(default=False, help_text="Queued by a replay (one replay in flight per endpoint).")

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(fields=["company", "endpoint", "event"], name="delivery_endpoint_event"),
        ]
        indexes = [
            models.Index(fields=["next_attempt_at", "id"], condition=Q(status="pending"), name="delivery_pending_due"),
            models.Index(fields=["event"], name="delivery_event"),
            models.Index(
                fields=["endpoint", "next_attempt_at", "id"],
                condition=Q(status="pending"),
                name="delivery_pending_endpoint_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} -> {self.endpoint_id} ({self.status})"


class WebhookReplay(models.Model):
    """One replay request (N5): at most one in flight per endpoint, and the events replayed per company per
    day are budgeted (WEBHOOK_REPLAY_EVENTS_PER_DAY)."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="+")
    event_count = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["company", "created_at"], name="webhook_replay_company")]

    def __str__(self) -> str:
        return f"{self.event_count} events to {self.endpoint_id} at {self.created_at:%Y-%m-%d %H:%M}"


class DeliveryAttempt(models.Model):
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attempts")
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="+")
    attempted_at = models.DateTimeField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=255, blank=True)

    class Meta:
        indexes = [models.Index(fields=["event", "attempted_at"], name="attempt_event")]

    def __str__(self) -> str:
        return f"{self.status_code or self.error} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"
