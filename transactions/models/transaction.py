"""Transactions and the records that travel with them (SPEC 2.3, 2.4, 4.9; CONTRACT 6, 7): the charge row, its
hold and exception and its event trail.

The transaction row keeps its own scalar columns; batch, settlement, return, change-notice, hold and
exception data live in their own tables so reporting joins them only when a column asks for them.
`Transaction.id` is the per-deployment increasing `numericId`."""

from __future__ import annotations

from uuid import uuid4

from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from payments.models import PaymentMethod
from transactions.models.ach import Batch, IngestionFile, Settlement
from transactions.models.validation import AccountValidation
from vault.fields import EncryptedTextField, ReturnedBooleanField
from vault.figures import dollars


class Method(models.TextChoices):
    # Labels as people say them (the admin showed "Ach", "Crd").
    ACH = "ACH", "ACH"
    RCC = "RCC", "RCC"
    RTP = "RTP", "RTP"
    CRD = "CRD", "Card"


class TransactionType(models.TextChoices):
    DEBIT = "Debit"
    CREDIT = "Credit"


class Status(models.TextChoices):
    PENDING = "Pending"
    PROCESSING = "Processing"
    SETTLED = "Settled"
    RETURNED = "Returned"
    VOIDED = "Voided"
    REJECTED = "Rejected"
    REVERSED = "Reversed"
    DECLINED = "DECLINED"
    HELD = "HELD"


class Finality(models.TextChoices):
    """When a debit's money is safe (CONTRACT 15): an attribute beside the status, never a status. A late return still
    moves a final debit to Returned."""

    PENDING = "pending"
    AVAILABLE = "available"
    FINAL = "final"


class Purpose(models.TextChoices):
    """What a charge pays for (CONTRACT 11): some purposes fix the Company Entry Description (Nacha 2026)."""

    GOODS = "goods"
    SERVICES = "services"
    PAYROLL = "payroll"
    BILL = "bill"
    OTHER = "other"


NOT_SEEDED = Q(seeded__isnull=True)
# The credits and the offsetting debit of a micro-deposit validation: their amounts are the payer's secret
# (CONTRACT 12), so no merchant-facing surface shows them (records show `amount: null`, reporting leaves them out).
MICRO_ENTRY = Q(account_validation__isnull=False, amount__gt=0)
# A return received after its entry settled, waiting for the late-return settlement that takes its money back.
AWAITING_LATE_SETTLEMENT = Q(
    status=Status.RETURNED, late_returned_at__isnull=False, late_return_settlement__isnull=True
)
PARTIALLY_INDEXED_LINKS = (
    "customer",
    "payment_method",
    "retry_of",
    "refund_of",
    "account_validation",
    "batch",
    "settlement",
    "late_return_settlement",
    "ingestion_file",
    "mandate",
)


class Transaction(models.Model):
    # No index of its own: every (company, ...) index below leads with it, and each index more is one more write
    # on every status move of the lifecycle commands.
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="transactions", db_index=False)
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    sequence_uuid = models.UUIDField(default=uuid4, editable=False)
    historical_id = models.CharField(max_length=255, blank=True)
    customer = models.ForeignKey(
        Customer, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions", db_index=False
    )
    payment_method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions", db_index=False
    )
    method = models.CharField(max_length=3, choices=Method.choices)
    type = models.CharField(max_length=6, choices=TransactionType.choices)
    amount = models.BigIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    standard_entry_class_code = models.CharField(max_length=4, blank=True)
    effective_date = models.DateField()
    is_same_day = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    external_unique_id = models.CharField(max_length=255, blank=True)
    # A charge's INSERT computes it (transactions.selectors.duplicate_of) and reads it back in one statement.
    is_duplicate = ReturnedBooleanField(default=False)
    rtp_transaction_id = models.CharField(max_length=64, blank=True)
    # True on rows made by `seed_transactions` (sample data), NULL on real ones: originate and settle read only
    # NOT_SEEDED rows. Nullable without a default, so adding it never rebuilds this table on SQLite.
    seeded = models.BooleanField(null=True, blank=True, editable=False)
    # Who created the row (transactions.state.Actor); a database trigger (migration 0009) copies them into the
    # row's `created` TransactionEvent in the INSERT itself. Nullable without a default, as `seeded` is.
    created_by_caller = models.CharField(max_length=8, null=True, blank=True, editable=False)
    created_by = models.CharField(max_length=64, null=True, blank=True, editable=False)
    idempotency_key = models.CharField(max_length=255, blank=True)
    description = models.CharField(max_length=255, blank=True)
    failure_reason = models.CharField(max_length=255, blank=True)
    category = models.CharField(max_length=255, blank=True)
    category_uuid = models.UUIDField(null=True, blank=True)
    sale_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    reversed_at = models.DateTimeField(null=True, blank=True)
    reversal_uuid = models.UUIDField(null=True, blank=True, help_text="The offsetting transaction of a reversal.")
    # A re-presentment of a returned debit (Nacha 2.12.4) points at the first presentment. Nullable without a
    # default (as entry_description), so adding them never rebuilds this table on SQLite.
    retry_of = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="retries", editable=False, db_index=False
    )
    # A refund credit points at the debit it refunds (CONTRACT 12); the debit may have several, up to its amount.
    refund_of = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="refunds", editable=False, db_index=False
    )
    entry_description = models.CharField(max_length=10, null=True, blank=True, help_text="Company Entry Description.")
    # What the charge pays for (CONTRACT 11): with the SEC code and direction it fixes some entry descriptions.
    purpose = models.CharField(max_length=10, choices=Purpose.choices, null=True, blank=True)
    # The payer's authorization the debit goes under (CONTRACT 14); nullable without a default, as the links above.
    mandate = models.ForeignKey(
        "mandates.Mandate",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="debits",
        editable=False,
        db_index=False,
    )
    # A prenote or micro-entry of an account validation; a prenote is the only entry whose amount is 0.
    account_validation = models.ForeignKey(
        AccountValidation, on_delete=models.PROTECT, null=True, blank=True, related_name="entries", db_index=False
    )

    # "none": no automatic re-presentment of this charge whatever the company's retry policy (CONTRACT 15).
    retry_policy = models.CharField(max_length=4, null=True, blank=True)
    # Finality (CONTRACT 15), stamped by `settle` as the debit settles (transactions.ach.finality; `mark_final` stamps
    # what a file holds without them): the last days a return is timely (CONTRACT 12), when its money is available,
    # and whether it is final.
    returns_due_by = models.DateField(null=True, blank=True)
    unauthorized_returns_due_by = models.DateField(null=True, blank=True)
    funds_available_at = models.DateTimeField(null=True, blank=True)
    finality = models.CharField(max_length=9, choices=Finality.choices, null=True, blank=True)
    final_at = models.DateTimeField(null=True, blank=True)

    # Payment details as charged (a saved method's stored values replace the request's, SPEC 4.7 rule 3).
    name = models.CharField(max_length=255, blank=True)
    account_type = models.CharField(max_length=10, blank=True)
    account_number = EncryptedTextField(null=True, blank=True)
    account_number_hash = models.CharField(max_length=64, blank=True, help_text="Keyed hash of the account number.")
    # crypto.unpadded_account_hash: set only when the number has leading zeros, which the debit rules ignore
    # (CONTRACT 12); NULL means account_number_hash is the key. Nullable without a default, as `seeded`.
    unpadded_account_hash = models.CharField(max_length=64, null=True, blank=True, editable=False)
    account_last_four = models.CharField(max_length=4, blank=True)
    routing_number = models.CharField(max_length=9, blank=True)

    # Card (CRD): only first six, last four and a masked number are ever stored.
    card_first_six = models.CharField(max_length=6, blank=True)
    card_last_four = models.CharField(max_length=4, blank=True)
    card_masked = models.CharField(max_length=19, blank=True)
    card_expiration = models.CharField(max_length=5, blank=True)
    authorized_at = models.DateTimeField(null=True, blank=True)
    auth_response_code = models.CharField(max_length=8, blank=True)
    captured_at = models.DateTimeField(null=True, blank=True)

    batch = models.ForeignKey(
        Batch, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions", db_index=False
    )
    trace_number = models.CharField(max_length=15, blank=True)
    # The processing day of the file that carried the entry: trace numbers are unique per originating DFI and
    # this day (the sequence starts again every day), and a return is matched inside its window by it.
    trace_date = models.DateField(null=True, blank=True)
    settlement = models.ForeignKey(
        Settlement, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions", db_index=False
    )
    expected_to_settle_at = models.DateTimeField(null=True, blank=True)
    late_return_settlement = models.ForeignKey(
        Settlement,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="late_return_transactions",
        db_index=False,
    )
    late_returned_at = models.DateTimeField(null=True, blank=True)
    ingestion_file = models.ForeignKey(
        IngestionFile, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions", db_index=False
    )
    # A copy of return_entry.return_code that a database trigger keeps (migration 0003): "has a return" and
    # "returned with R01" read one index of this table instead of joining every return of the company.
    return_code = models.CharField(max_length=4, null=True, blank=True, editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gt=0) | Q(amount=0, account_validation__isnull=False),
                name="transaction_amount_positive_or_prenote",
            ),
            # The trace number starts with the originating DFI, so (trace_number, trace_date) is unique per
            # DFI and day; the index leads with trace_number for `import_returns`' lookups.
            models.UniqueConstraint(
                fields=["trace_number", "trace_date"],
                condition=~Q(trace_number=""),
                name="transaction_unique_trace_number_day",
            ),
        ]
        indexes = [
            models.Index(fields=["company", "-id"], name="txn_company_id"),
            # (company, created_at) is reporting's txn_company_created_id (PostgreSQL; reporting/0001), with the id.
            models.Index(fields=["company", "effective_date"], name="txn_company_effective"),
            models.Index(fields=["company", "amount"], name="txn_company_amount"),
            models.Index(fields=["company", "status"], name="txn_company_status"),
            # Counts by method and "not yet batched" (cards and RTP never batch) from the index alone.
            models.Index(fields=["company", "method", "batch"], name="txn_company_method_batch"),
            # With the id: an account's page of the newest rows stops at the page (an account with 3,000 entries of
            # 10M was 3,000 random heap reads, then a sort).
            models.Index(fields=["company", "account_number_hash", "id"], name="txn_company_account_hash_id"),
            # name eq/in, and `like` once reporting.PayerName has turned the fragment into the matching names.
            models.Index(fields=["company", "name"], name="txn_company_name"),
            models.Index(fields=["company", "return_code"], name="txn_company_return_code"),
            # Re-initiation (transactions.risk.account_rules) finds a returned debit to an account written with
            # leading zeros by its unpadded key: only returned entries of such accounts are in it.
            models.Index(
                fields=["company", "unpadded_account_hash"],
                condition=Q(unpadded_account_hash__isnull=False, return_code__isnull=False),
                name="txn_company_unpadded_returned",
            ),
            models.Index(fields=["status", "method", "effective_date"], name="txn_status_method_effective"),
            # Reporting leaves micro-entries out and takes their count off totalRows: a few rows per company.
            models.Index(fields=["company"], condition=MICRO_ENTRY, name="txn_company_micro_entries"),
            # `settle` looks for these on every run. An entry stays Returned for good, so through the status index it
            # read every return ever received; this index holds only the few waiting, and a move of any other entry
            # writes nothing in it.
            models.Index(fields=["company"], condition=AWAITING_LATE_SETTLEMENT, name="txn_awaiting_late_settlement"),
            # Each link to another row, indexed only where it is set (transactions/0020): most rows have no retry,
            # refund, validation or return, and none has a batch or settlement until the lifecycle gives it one, so
            # a status move writes no entry in these. Lookups are by a linked row (`link = X`, which implies set).
            *(
                models.Index(fields=[link], condition=Q(**{f"{link}__isnull": False}), name=f"txn_{link}")
                for link in PARTIALLY_INDEXED_LINKS
            ),
        ]
        # The back-office operator actions (transactions/ach/admin.py): each its own grant, not view.
        permissions = [
            ("release_hold", "Can release held transactions"),
            ("reject_transaction", "Can reject transactions"),
            ("restore_transaction", "Can restore rejected transactions"),
            ("acknowledge_exception", "Can acknowledge transaction exceptions"),
            ("simulate_sandbox", "Can simulate the bank's answers for sandbox companies"),
        ]

    def __str__(self) -> str:
        return f"{self.method} {self.type} {dollars(self.amount)} ({self.uuid})"

    @property
    def is_prenote(self) -> bool:
        return self.amount == 0 and self.account_validation_id is not None

    @property
    def is_micro_entry(self) -> bool:
        return self.amount > 0 and self.account_validation_id is not None


class TransactionHold(models.Model):
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    transaction = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="hold")
    hold_code = models.CharField(max_length=8)
    hold_reason = models.CharField(max_length=255)
    held_at = models.DateTimeField(default=timezone.now)
    released_at = models.DateTimeField(null=True, blank=True)


class TransactionException(models.Model):
    """Operator handling of a problem transaction: rejected, restored, acknowledged."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+")
    transaction = models.OneToOneField(Transaction, on_delete=models.PROTECT, related_name="exception")
    reject_reason = models.CharField(max_length=255, blank=True)
    rejected_at = models.DateTimeField(null=True, blank=True)
    restored_at = models.DateTimeField(null=True, blank=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)


class TransactionEvent(models.Model):
    """One change of a transaction, written in the same database transaction as the change itself: its birth
    (`created`, from no status) by a trigger on the transaction's INSERT, every later move by transactions.state.
    Never updated or deleted."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, related_name="events", db_index=False)
    event = models.CharField(max_length=20)
    from_status = models.CharField(max_length=10, blank=True, help_text="Empty for the transaction's creation.")
    to_status = models.CharField(max_length=10)
    caller = models.CharField(max_length=8, help_text="api (a route), admin (an admin action) or command.")
    actor = models.CharField(max_length=64, help_text="api_key:<id>, user:<id> or the command's name.")
    reason = models.CharField(max_length=255, blank=True)
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["transaction", "id"], name="txn_event_transaction_id")]

    def __str__(self) -> str:
        return f"{self.event}: {self.from_status or '-'} -> {self.to_status}"
