"""What comes back from the bank for an entry: returns, dishonored and contested returns, parked return items and
notices of change."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.utils import timezone

from accounts.models import Company
from transactions.models.ach import IngestionFile
from transactions.models.transaction import Transaction
from vault.fields import EncryptedTextField


class TransactionReturn(models.Model):
    """An ACH return (R01, R02, ...). `id` is returnNumericId."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    transaction = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="return_entry")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    return_code = models.CharField(max_length=4)
    return_reason = models.CharField(max_length=255)
    returned_at = models.DateTimeField()
    ingestion_file = models.ForeignKey(IngestionFile, on_delete=models.PROTECT, null=True, blank=True)
    # Timeliness (Nacha 2.12): the last day its code's time frame allowed, counted from the entry's settlement
    # date (null: a code with no fixed window). A return received later is still booked, and flagged for the
    # operator, whose ODFI may dishonor it (R68). Nullable without a default, so adding them never rebuilds
    # this table on SQLite (its trigger stays).
    due_by = models.DateField(null=True, blank=True, help_text="Last day of the code's return time frame.")
    is_untimely = models.BooleanField(
        null=True, blank=True, verbose_name="candidate to dishonor", help_text="Received after its due-by day."
    )
    # CONTRACT 14 (2026-12-07): the one mandate accepted after an R01/R09 return that lets debits to the account past
    # it (the first debit under it sets it; another mandate cannot lift the same return).
    reauthorized_by = models.ForeignKey(
        "mandates.Mandate", on_delete=models.PROTECT, null=True, blank=True, related_name="+", db_index=False
    )


class DishonoredReturn(models.Model):
    """A dishonored return (R61-R70: the ODFI refusing the RDFI's return) or a contested dishonored return
    (R71-R77: the RDFI answering the dishonor), kept beside the return it answers. It never changes the
    entry's status, makes no settlement, voids nothing and counts in no return rate."""

    class Kind(models.TextChoices):
        DISHONORED = "dishonored"
        CONTESTED = "contested"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="dishonored_returns")
    transaction_return = models.ForeignKey(
        TransactionReturn, on_delete=models.PROTECT, related_name="dishonored_returns", help_text="What it answers."
    )
    code = models.CharField(max_length=4)
    reason = models.CharField(max_length=255)
    received_at = models.DateTimeField()
    ingestion_file = models.ForeignKey(IngestionFile, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            # A return is dishonored once and a dishonor contested once.
            models.UniqueConstraint(
                fields=["company", "transaction_return", "kind"], name="dishonored_return_one_per_kind"
            )
        ]
        indexes = [models.Index(fields=["company", "-received_at"], name="dishonored_return_company_at")]

    def __str__(self) -> str:
        return f"{self.code} {self.reason}"


class ParkedReturnItem(models.Model):
    """An item of an imported return / NOC file that was not applied (an unknown or refused code, a NOC whose
    corrected data cannot be applied, a dishonor with no return to answer): kept with why, for the operator.
    Like the file, it spans companies (a global table: no foreign key into a merchant's rows, CONTRACT 8); the
    entry its trace number matched, if any, is named by uuid."""

    ingestion_file = models.ForeignKey(IngestionFile, on_delete=models.PROTECT, related_name="parked_items")
    trace_number = models.CharField(max_length=15)
    code = models.CharField(max_length=4)
    reason = models.CharField(max_length=255)
    transaction_uuid = models.UUIDField(null=True, blank=True, help_text="The entry its trace number matched.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"{self.trace_number} {self.code}: {self.reason}"


class ChangeNotice(models.Model):
    """A notice of change (C01, C02, ...) with the old and new values it carried."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    transaction = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="change_notice")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    change_code = models.CharField(max_length=4)
    change_reason = models.CharField(max_length=255)
    changed_at = models.DateTimeField()
    noc_received_at = models.DateTimeField()
    old_value = models.JSONField(default=dict)
    new_value = models.JSONField(default=dict)  # account numbers masked
    # In full (encrypted) only here: a reversal of a one-off charge, which has no saved method to correct, pays it.
    corrected_account_number = EncryptedTextField(null=True, blank=True)
    ingestion_file = models.ForeignKey(IngestionFile, on_delete=models.PROTECT, null=True, blank=True)
