"""What went to the bank and what came back: one BankFile per live NACHA file `originate` wrote (its transmission
and the bank's answer), one InboundFile per file fetched from the bank (recorded by name and SHA-256 before it is
applied, so none is applied twice)."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from transactions.models import OriginationFile


class BankFileStatus(models.TextChoices):
    PENDING = "pending", "pending (not yet on the bank's server)"
    TRANSMITTED = "transmitted", "transmitted (waiting for the acknowledgement)"
    ACKNOWLEDGED = "acknowledged"
    REJECTED = "rejected"
    UNACKNOWLEDGED = "unacknowledged", "unacknowledged (no answer in time)"
    OUTSIDE = "outside", "sent outside the connection (before it existed)"
    EXCEPTION = "exception", "exception (the bank's answers contradict each other)"


class BankFile(models.Model):
    """One outbound NACHA file's way to the bank. Its remote name is fixed when the record is made and looked for
    on the server before every upload, so a run that stopped anywhere never sends the file twice."""

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    origination_file = models.OneToOneField(
        OriginationFile, on_delete=models.PROTECT, related_name="bank_file", editable=False
    )
    name = models.CharField(max_length=120, unique=True, editable=False, help_text="The file's name on the server.")
    status = models.CharField(max_length=16, choices=BankFileStatus.choices, default=BankFileStatus.PENDING)
    attempts = models.PositiveIntegerField(default=0, help_text="Uploads begun (a run that found it there counts).")
    last_error = models.CharField(max_length=500, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    transmitted_at = models.DateTimeField(null=True, blank=True, help_text="Read back whole from the server.")
    renamed_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="When a run asked the server to rename the upload into place: from then on the bank may hold the "
        "file, so it is never uploaded again unless a run proves it is not there.",
    )
    answered_at = models.DateTimeField(
        null=True, blank=True, help_text="When the bank's acknowledgement (or rejection) was fetched."
    )
    rejected_reason = models.CharField(max_length=500, blank=True)
    exception = models.CharField(
        max_length=500,
        blank=True,
        help_text="Why the file is an exception: the bank's answers that contradict each other, both quoted.",
    )
    resent_as = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="resent_from",
        editable=False,
        help_text="The file its entries were sent again in (a new file id modifier).",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        indexes = [models.Index(fields=["status", "id"], name="bank_file_status")]

    def __str__(self) -> str:
        return self.name


class InboundFile(models.Model):
    """A file fetched from the bank's outbox, recorded before it is applied: a crash midway leaves it `applying`
    and the next fetch finishes it. The same content under another name is recorded as a duplicate of the first
    and never applied (one applied record per SHA-256, held by the database)."""

    class Kind(models.TextChoices):
        ACKNOWLEDGEMENT = "acknowledgement"
        RETURNS = "returns", "returns / notices of change"
        STATEMENT = "statement", "statement of our settlement account"

    class State(models.TextChoices):
        APPLYING = "applying"
        APPLIED = "applied"
        REFUSED = "refused", "refused (read again on every run until it reads)"
        DUPLICATE = "duplicate"
        SET_ASIDE = "set_aside", "set aside by an operator (never read again)"

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    name = models.CharField(max_length=255, unique=True)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(default=0)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.APPLYING)
    duplicate_of = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    received_at = models.DateTimeField(default=timezone.now)
    applied_at = models.DateTimeField(null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["sha256"], condition=Q(duplicate_of__isnull=True), name="inbound_file_content_once"
            )
        ]

    def __str__(self) -> str:
        return self.name
