"""The bank's files: the NACHA files `originate` writes, their batches, the settlements, and the return files
`import_returns` reads (SPEC 4.9)."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.utils import timezone

from accounts.models import Company


class OriginationFile(models.Model):
    """One NACHA file written by `originate` for a processing window (spans companies)."""

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    window_at = models.DateTimeField(help_text="The processing window the file was cut for.")
    # A sandbox file holds sandbox companies' entries only, is written under SANDBOX_DIR and never goes to a bank;
    # a live file never holds a sandbox entry (CONTRACT 13).
    is_sandbox = models.BooleanField(default=False, editable=False)
    file_id_modifier = models.CharField(max_length=1)
    path = models.CharField(max_length=500)
    batch_count = models.PositiveIntegerField(default=0)
    entry_count = models.PositiveIntegerField(default=0)
    debit_total = models.BigIntegerField(default=0)
    credit_total = models.BigIntegerField(default=0)
    # Set with `path` once the file is on disk: a batch settles only when its file was written (both set).
    sha256 = models.CharField(max_length=64, blank=True, help_text="SHA-256 of the file as written.")
    building = models.BooleanField(
        default=False,
        editable=False,
        help_text="Companies are still batching into it (a run that stopped midway; the next run finishes it). "
        "It is written only once built.",
    )
    purged_at = models.DateTimeField(
        null=True, blank=True, help_text="When `purge_outbound` deleted the file; this record stays."
    )
    # Set by the bank connection (bank.state), never by hand: the bank has not taken the file, so its entries do
    # not settle. A live file written while BANK_SFTP_URL is set starts so (cleared once transmitted); a rejection
    # sets it again; a file sent again after a rejection is cleared only by the bank's acknowledgement.
    awaiting_bank = models.BooleanField(
        default=False,
        editable=False,
        help_text="Its entries do not settle: not yet transmitted, rejected by the bank, or sent again after a "
        "rejection and not yet acknowledged.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            # Live and sandbox files take their file id modifiers apart (CONTRACT 12 "Matching").
            models.UniqueConstraint(
                fields=["window_at", "is_sandbox", "file_id_modifier"], name="origination_file_window_modifier"
            )
        ]

    def __str__(self) -> str:
        return self.path


class TraceSequence(models.Model):
    """The last trace sequence number `originate` handed out for an originating DFI (the live one, and the
    sandbox's own): sequences continue across days, wrapping after 9,999,999, so that a trace number is reused as
    late as possible (CONTRACT 12 "Matching"). Each run reserves a block for the entries due in it."""

    originating_dfi = models.CharField(max_length=8, unique=True)
    last = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.originating_dfi}: {self.last}"


class Batch(models.Model):
    """A NACHA batch: one company, one SEC code, one entry description, one window. `id` is batchNumericId."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="batches")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    origination_file = models.ForeignKey(
        OriginationFile, on_delete=models.PROTECT, null=True, blank=True, related_name="batches"
    )
    standard_entry_class_code = models.CharField(max_length=4)
    entry_description = models.CharField(max_length=10, default="PAYMENT", help_text="Company Entry Description.")
    effective_date = models.DateField()
    batched_at = models.DateTimeField(default=timezone.now)
    batch_number = models.PositiveIntegerField(default=1, help_text="Position of the batch inside its file.")
    entry_count = models.PositiveIntegerField(default=0)
    debit_total = models.BigIntegerField(default=0)
    credit_total = models.BigIntegerField(default=0)
    debit_count = models.PositiveIntegerField(
        default=0,
        db_default=0,  # also for the batches the sample-data seeding writes: their entries count as no debit
        help_text="Its debit entries that move money (prenotes left out): what the return rates count as its debits.",
    )

    class Meta:
        verbose_name_plural = "batches"
        indexes = [models.Index(fields=["company", "batched_at"], name="batch_company_batched")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(debit_count__lte=models.F("entry_count")), name="batch_debit_count_within_entries"
            )
        ]

    def __str__(self) -> str:
        return f"Batch {self.pk}"


class Settlement(models.Model):
    """Funds settled for one company on one day; late returns get their own settlement of kind late_return."""

    class Kind(models.TextChoices):
        REGULAR = "regular"
        LATE_RETURN = "late_return"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="settlements")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.REGULAR)
    settlement_date = models.DateField()
    processed_at = models.DateTimeField(default=timezone.now)
    transaction_count = models.PositiveIntegerField(default=0)
    net_amount = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["company", "kind", "settlement_date"], name="settlement_company_kind_day")
        ]

    def __str__(self) -> str:
        return f"Settlement {self.pk} ({self.kind} {self.settlement_date})"


class IngestionFile(models.Model):
    """A return / notice-of-change file imported by `import_returns`."""

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    filename = models.CharField(max_length=500)
    sha256 = models.CharField(max_length=64, unique=True)
    file_format = models.CharField(max_length=10)
    received_at = models.DateTimeField(default=timezone.now)
    summary = models.JSONField(default=dict, blank=True)
    applying = models.BooleanField(
        default=False,
        db_default=False,  # also for the rows the sample-data seeding copies in
        editable=False,
        help_text="Its items are still being applied (a run that stopped midway; importing the same file again "
        "finishes it). The summary is written once every part is in.",
    )

    def __str__(self) -> str:
        return self.filename


class IngestionPart(models.Model):
    """One database transaction of an import: the companies whose items of one chunk of the file it applied
    (`None` in `company_ids` for the items that name no entry), and what it did, for the file's summary. A rerun of
    a file whose import stopped midway applies only what no part holds."""

    ingestion_file = models.ForeignKey(IngestionFile, on_delete=models.CASCADE, related_name="parts")
    chunk = models.PositiveIntegerField()
    company_ids = models.JSONField(default=list)
    summary = models.JSONField(default=dict)

    def __str__(self) -> str:
        return f"{self.ingestion_file} chunk {self.chunk}"
