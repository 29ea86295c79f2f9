"""Search aids for the transaction report, kept by database triggers, and the leases that cap concurrent CSV exports."""

from __future__ import annotations

from uuid import uuid4

from django.db import models

from accounts.models import Company


class PayerName(models.Model):
    """Every distinct `Transaction.name` of a company, kept by triggers on the transaction table (migration 0002).

    `name:like` looks the fragment up here first (a merchant's payers, not its million transactions) and then reads
    the transactions with those names from the (company, name) index: counting 80,000 matches is an index range
    scan instead of a trigram bitmap over 40,000 heap pages. Names are only ever added; one that no transaction
    carries any more matches nothing."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["company", "name"], name="payer_name_company_name")]

    def __str__(self) -> str:
        return self.name


class TransactionCount(models.Model):
    """One of up to 16 rows whose sum is a company's number of transactions, kept by triggers on the
    transaction table (migration 0004), so `totalRows` costs a few rows at any size instead of a count.

    Several rows per company because each insert adds to one row and holds its lock until commit: concurrent
    charges of one merchant add to different rows (chosen by backend) instead of queueing on one.
    `verify_counters` compares the sums with count(*) and repairs them."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    slot = models.PositiveSmallIntegerField()
    row_count = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["company", "slot"], name="transaction_count_company_slot"),
        ]

    def __str__(self) -> str:
        return f"{self.company_id}/{self.slot}: {self.row_count}"


class CsvExportLease(models.Model):
    """One CSV export streaming for a company (M9): at most CSV_EXPORTS_PER_COMPANY at once. Released when the
    response closes; a worker that dies mid-export leaves a lease that lapses at `expires_at` (renewed while the
    export streams)."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["company", "expires_at"], name="csv_lease_company_expires")]

    def __str__(self) -> str:
        return f"CSV export of {self.company_id} since {self.started_at}"


class ReportExport(models.Model):
    """A CSV export made in the background (N4, as Stripe's report runs): `POST /reporting/exports` queues it, a
    worker writes the file under var/exports/ (0600), and the company downloads it until `expires_at`."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    uuid = models.UUIDField(default=uuid4, editable=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    parameters = models.JSONField(help_text="The reporting query: [name, value] pairs, as GET /reporting/transactions.")
    row_count = models.PositiveBigIntegerField(null=True, blank=True)
    file_name = models.CharField(max_length=100, blank=True, help_text="Under var/exports/; cleared when purged.")
    failure_reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["company", "uuid"], name="report_export_company_uuid")]
        indexes = [models.Index(fields=["expires_at"], name="report_export_expires")]

    def __str__(self) -> str:
        return f"export {self.uuid} ({self.status})"
