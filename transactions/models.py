"""Transactions and the lifecycle records around them (SPEC 2.3, 2.4, 4.9; CONTRACT 6, 7).

The transaction row keeps its own scalar columns; batch, settlement, return, change-notice, hold and
exception data live in their own tables so reporting joins them only when a column asks for them.
`Transaction.id` is the per-deployment increasing `numericId`."""

from __future__ import annotations

from uuid import uuid4

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from payments.models import PaymentMethod
from vault.fields import EncryptedTextField, ReturnedBooleanField
from vault.figures import dollars


class Method(models.TextChoices):
    ACH = "ACH"
    RCC = "RCC"
    RTP = "RTP"
    CRD = "CRD"


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
    purged_at = models.DateTimeField(
        null=True, blank=True, help_text="When `purge_outbound` deleted the file; this record stays."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["window_at", "file_id_modifier"], name="origination_file_window_modifier")
        ]

    def __str__(self) -> str:
        return self.path


class Purpose(models.TextChoices):
    """What a charge pays for (CONTRACT 11): some purposes fix the Company Entry Description (Nacha 2026)."""

    GOODS = "goods"
    SERVICES = "services"
    PAYROLL = "payroll"
    BILL = "bill"
    OTHER = "other"


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

    class Meta:
        verbose_name_plural = "batches"
        indexes = [models.Index(fields=["company", "batched_at"], name="batch_company_batched")]

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

    def __str__(self) -> str:
        return self.filename


NOT_SEEDED = Q(seeded__isnull=True)
# The credits and the offsetting debit of a micro-deposit validation: their amounts are the payer's secret
# (CONTRACT 12), so no merchant-facing surface shows them (records show `amount: null`, reporting leaves them out).
MICRO_ENTRY = Q(account_validation__isnull=False, amount__gt=0)


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


class Transaction(models.Model):
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="transactions")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    sequence_uuid = models.UUIDField(default=uuid4, editable=False)
    historical_id = models.CharField(max_length=255, blank=True)
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions")
    payment_method = models.ForeignKey(
        PaymentMethod, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions"
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
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="retries", editable=False
    )
    # A refund credit points at the debit it refunds (CONTRACT 12); the debit may have several, up to its amount.
    refund_of = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="refunds", editable=False
    )
    entry_description = models.CharField(max_length=10, null=True, blank=True, help_text="Company Entry Description.")
    # What the charge pays for (CONTRACT 11): with the SEC code and direction it fixes some entry descriptions.
    purpose = models.CharField(max_length=10, choices=Purpose.choices, null=True, blank=True)
    # A prenote or micro-entry of an account validation; a prenote is the only entry whose amount is 0.
    account_validation = models.ForeignKey(
        AccountValidation, on_delete=models.PROTECT, null=True, blank=True, related_name="entries"
    )

    # Payment details as charged (a saved method's stored values replace the request's, SPEC 4.7 rule 3).
    name = models.CharField(max_length=255, blank=True)
    account_type = models.CharField(max_length=10, blank=True)
    account_number = EncryptedTextField(null=True, blank=True)
    account_number_hash = models.CharField(max_length=64, blank=True, help_text="Keyed hash of the account number.")
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

    batch = models.ForeignKey(Batch, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions")
    trace_number = models.CharField(max_length=15, blank=True)
    # The processing day of the file that carried the entry: trace numbers are unique per originating DFI and
    # this day (the sequence starts again every day), and a return is matched inside its window by it.
    trace_date = models.DateField(null=True, blank=True)
    settlement = models.ForeignKey(
        Settlement, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions"
    )
    expected_to_settle_at = models.DateTimeField(null=True, blank=True)
    late_return_settlement = models.ForeignKey(
        Settlement, on_delete=models.PROTECT, null=True, blank=True, related_name="late_return_transactions"
    )
    late_returned_at = models.DateTimeField(null=True, blank=True)
    ingestion_file = models.ForeignKey(
        IngestionFile, on_delete=models.PROTECT, null=True, blank=True, related_name="transactions"
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
            models.Index(fields=["company", "created_at"], name="txn_company_created"),
            models.Index(fields=["company", "effective_date"], name="txn_company_effective"),
            models.Index(fields=["company", "amount"], name="txn_company_amount"),
            models.Index(fields=["company", "status"], name="txn_company_status"),
            # Counts by method and "not yet batched" (cards and RTP never batch) from the index alone.
            models.Index(fields=["company", "method", "batch"], name="txn_company_method_batch"),
            models.Index(fields=["company", "account_number_hash"], name="txn_company_account_hash"),
            # name eq/in, and `like` once reporting.PayerName has turned the fragment into the matching names.
            models.Index(fields=["company", "name"], name="txn_company_name"),
            models.Index(fields=["company", "return_code"], name="txn_company_return_code"),
            models.Index(fields=["status", "method", "effective_date"], name="txn_status_method_effective"),
            # Reporting leaves micro-entries out and takes their count off totalRows: a few rows per company.
            models.Index(fields=["company"], condition=MICRO_ENTRY, name="txn_company_micro_entries"),
        ]
        # The back-office operator actions (transactions/lifecycle/admin.py): each its own grant, not view.
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


class AccountBlock(models.Model):
    """A bank account this company may no longer debit (CONTRACT 12, Nacha 2.12.4): placed by a return that says
    the account cannot be debited (R02, R03, ...; transactions.returnrisk.account_rules), keyed on the account
    (routing + account keyed hash) so saved methods and one-off charges alike are refused, until an operator
    lifts it with a reason."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="account_blocks")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    account_hash = models.CharField(max_length=64, help_text="Keyed hash of routing + account.")
    # The entries' own keys (Transaction.routing_number, account_number_hash): `originate` matches them unread.
    account_number_hash = models.CharField(max_length=64, help_text="Keyed hash of the account number.")
    routing_number = models.CharField(max_length=9)
    account_last_four = models.CharField(max_length=4)
    return_code = models.CharField(max_length=4)
    transaction = models.ForeignKey(
        Transaction, on_delete=models.PROTECT, related_name="+", help_text="The returned entry that placed it."
    )
    blocked_at = models.DateTimeField()
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    lift_reason = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            # One live block per account and company, also when two return files name it at once.
            models.UniqueConstraint(
                fields=["company", "account_hash"], condition=Q(lifted_at__isnull=True), name="account_block_one_live"
            ),
            models.CheckConstraint(
                condition=Q(lifted_at__isnull=True) | ~Q(lift_reason=""), name="account_block_lift_has_reason"
            ),
        ]
        permissions = [("lift_account_block", "Can lift account blocks")]

    def __str__(self) -> str:
        return f"****{self.account_last_four} blocked after {self.return_code}"


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


class IdempotencyRecord(models.Model):
    """The first response to an `Idempotency-Key`, replayed for 24 hours (CONTRACT 6), then purged.
    `request_hash` is a keyed HMAC of the body with card and account numbers keyed-hashed and the cvv left out."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64)
    transaction = models.ForeignKey(Transaction, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["company", "key"], name="idempotency_company_key")]
        indexes = [models.Index(fields=["created_at"], name="idempotency_created_at")]  # purge_expired


class ReturnPolicy(models.Model):
    """A company's own actions for one return code; a code without a row follows RETURN_CODES' default actions."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="return_policies")
    return_code = models.CharField(max_length=4)
    block_method = models.BooleanField(default=False, help_text="Block the saved method that was debited.")
    deactivate_customer = models.BooleanField(default=False)
    hold_customer_debits = models.BooleanField(default=False, help_text="Hold that customer's new debits (RTN).")
    notify = models.BooleanField(default=False, help_text="Write a notice alert for the company's staff.")

    class Meta:
        verbose_name_plural = "return policies"
        constraints = [models.UniqueConstraint(fields=["company", "return_code"], name="return_policy_company_code")]

    def __str__(self) -> str:
        return f"{self.return_code} policy"


class RiskAlert(models.Model):
    """A return-rate level change of one category (kept for the evidence report), or a policy notice."""

    class Level(models.TextChoices):
        WARNING = "warning"
        BREACHED = "breached"
        CLEARED = "cleared"
        NOTICE = "notice"  # a return whose policy says notify

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="risk_alerts")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    category = models.CharField(max_length=16, help_text="unauthorized, administrative, overall, or a return code.")
    level = models.CharField(max_length=8, choices=Level.choices)
    returns = models.PositiveIntegerField(default=0)
    debits = models.PositiveIntegerField(default=0)
    rate = models.FloatField(default=0)
    threshold = models.FloatField(default=0)
    as_of = models.DateField(help_text="Last day of the rolling window the rate was computed over.")
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["company", "category", "-created_at"], name="risk_alert_company_category")]

    def __str__(self) -> str:
        return f"{self.category} {self.level}"


class DebitHold(models.Model):
    """While active, new debits of the company (customer empty) or of one customer are HELD with holdCode RTN."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="debit_holds")
    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    reason = models.CharField(max_length=255)
    alert = models.ForeignKey(RiskAlert, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["company"],
                condition=Q(customer__isnull=True, lifted_at__isnull=True),
                name="debit_hold_one_active_per_company",
            ),
            models.UniqueConstraint(
                fields=["company", "customer"],
                condition=Q(customer__isnull=False, lifted_at__isnull=True),
                name="debit_hold_one_active_per_customer",
            ),
        ]
        indexes = [models.Index(fields=["company", "lifted_at"], name="debit_hold_company_lifted")]

    def __str__(self) -> str:
        return self.reason


class RiskAction(models.Model):
    """Every action the return program took (policy actions on a return, holds on a breach): the evidence log."""

    class Kind(models.TextChoices):
        BLOCK_METHOD = "block_method"
        DEACTIVATE_CUSTOMER = "deactivate_customer"
        HOLD_CUSTOMER_DEBITS = "hold_customer_debits"
        NOTIFY = "notify"
        HOLD_COMPANY_DEBITS = "hold_company_debits"
        BLOCK_ACCOUNT = "block_account"
        LIFT_ACCOUNT_BLOCK = "lift_account_block"

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="risk_actions")
    action = models.CharField(max_length=24, choices=Kind.choices)
    return_code = models.CharField(max_length=4, blank=True)
    transaction = models.ForeignKey(Transaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    alert = models.ForeignKey(RiskAlert, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    detail = models.CharField(max_length=255, blank=True)
    taken_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["company", "-taken_at"], name="risk_action_company_taken")]


class RiskReview(models.Model):
    """The yearly review of a company's fraud-monitoring program (Nacha 2.2.4): who, when, notes."""

    company = models.ForeignKey(Company, on_delete=models.CASCADE, related_name="risk_reviews")
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reviewed_on = models.DateField()
    notes = models.TextField(blank=True)
    # The fraud-monitoring rules in force when the review was signed (transactions.returnrisk.monitoring.fraud_rules).
    rules = models.JSONField(default=list, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"review of {self.reviewed_on}"


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
