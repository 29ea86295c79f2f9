"""The bank's statements of our settlement account and what the service expected to see on them (CONTRACT 19):
each statement once (by name and SHA-256), its lines, the expected payments the service made itself, the matches
between them (each with its rule) and the exceptions Finance works."""

from __future__ import annotations

from uuid import uuid4

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from transactions.models import IngestionFile, OriginationFile


class Direction(models.TextChoices):
    CREDIT = "credit", "credit (money in)"
    DEBIT = "debit", "debit (money out)"


class Statement(models.Model):
    """One statement file, read whole. The same content is never kept twice (one row per SHA-256)."""

    class Format(models.TextChoices):
        BAI2 = "bai2", "BAI2"
        CAMT053 = "camt053", "ISO 20022 camt.053"

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    name = models.CharField(max_length=255, unique=True)
    sha256 = models.CharField(max_length=64, unique=True)
    format = models.CharField(max_length=8, choices=Format.choices)
    account_last_four = models.CharField(max_length=4, help_text="Of the settlement account (the rest never kept).")
    statement_date = models.DateField()
    opening_balance = models.BigIntegerField(null=True, blank=True, help_text="Opening ledger balance, cents.")
    closing_balance = models.BigIntegerField(null=True, blank=True, help_text="Closing ledger balance, cents.")
    line_count = models.PositiveIntegerField(default=0)
    received_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.name


class Match(models.Model):
    """Lines and expected payments proven to be the same money, and the rule (or the person) that proved it."""

    class Rule(models.TextChoices):
        REFERENCE = "reference", "one line, one expectation: reference, amount and window"
        REFERENCE_SPLIT = "reference_split", "several lines of one reference, one expectation"
        REFERENCE_GROUP = "reference_group", "one line, the expectations of a group (a return file)"
        AMOUNT_WINDOW = "amount_window", "one line without reference, the one expectation of its amount and window"
        BANK_FEE = "bank_fee", "the bank's fee (no expectation)"
        BANK_INTEREST = "bank_interest", "the bank's interest (no expectation)"
        BY_HAND = "by_hand", "matched by hand, with a reason"

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    rule = models.CharField(max_length=16, choices=Rule.choices)
    reason = models.CharField(max_length=500, blank=True)
    matched_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "matches"
        constraints = [
            models.CheckConstraint(
                condition=~Q(rule="by_hand") | (Q(matched_by__isnull=False) & ~Q(reason="")),
                name="match_by_hand_has_person_and_reason",
            )
        ]

    def __str__(self) -> str:
        return f"{self.rule} {self.uuid}"


class ItemState(models.TextChoices):
    OPEN = "open"
    MATCHED = "matched"
    WRITTEN_OFF = "written_off", "written off"


class StatementLine(models.Model):
    statement = models.ForeignKey(Statement, on_delete=models.PROTECT, related_name="lines")
    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    position = models.PositiveIntegerField()
    value_date = models.DateField()
    amount = models.BigIntegerField(help_text="Cents, always positive: the direction says which way.")
    direction = models.CharField(max_length=6, choices=Direction.choices)
    type_code = models.CharField(max_length=32, blank=True)
    bank_reference = models.CharField(max_length=64, blank=True)
    customer_reference = models.CharField(max_length=64, blank=True)
    text = models.CharField(max_length=255, blank=True)
    state = models.CharField(max_length=11, choices=ItemState.choices, default=ItemState.OPEN)
    match = models.ForeignKey(Match, on_delete=models.PROTECT, null=True, blank=True, related_name="lines")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["statement", "position"], name="statement_line_position_once"),
            models.CheckConstraint(condition=Q(amount__gt=0), name="statement_line_amount_positive"),
            models.CheckConstraint(
                condition=Q(state="matched", match__isnull=False) | (~Q(state="matched") & Q(match__isnull=True)),
                name="statement_line_matched_has_match",
            ),
        ]
        indexes = [models.Index(fields=["state", "value_date"], name="statement_line_open")]

    def __str__(self) -> str:
        return f"{self.value_date} {self.direction} {self.amount} {self.customer_reference}"


class ExpectedPayment(models.Model):
    """Money the service knows must cross the settlement account, made by the service itself (never by hand):
    a file's settlement (per direction and settlement day), a return item. `source_key` makes each one once."""

    class Kind(models.TextChoices):
        FILE_SETTLEMENT = "file_settlement", "an origination file's settlement"
        RETURN_ITEM = "return_item", "a returned entry"

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    source_key = models.CharField(max_length=120, unique=True, editable=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    direction = models.CharField(max_length=6, choices=Direction.choices)
    amount = models.BigIntegerField()
    expected_on = models.DateField()
    reference = models.CharField(max_length=64, help_text="What the bank's line names: the file, or the trace.")
    group = models.CharField(max_length=120, blank=True, help_text="A set the bank may post as one line.")
    origination_file = models.ForeignKey(
        OriginationFile, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    ingestion_file = models.ForeignKey(IngestionFile, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # A global table (it spans companies) keeps no foreign key into a merchant's rows (Citus readiness): the
    # return it expects is named by uuid.
    transaction_return_uuid = models.UUIDField(null=True, blank=True, unique=True)
    state = models.CharField(max_length=11, choices=ItemState.choices, default=ItemState.OPEN)
    match = models.ForeignKey(Match, on_delete=models.PROTECT, null=True, blank=True, related_name="expected")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="expected_payment_amount_positive"),
            models.CheckConstraint(
                condition=Q(state="matched", match__isnull=False) | (~Q(state="matched") & Q(match__isnull=True)),
                name="expected_payment_matched_has_match",
            ),
        ]
        indexes = [models.Index(fields=["state", "expected_on"], name="expected_payment_open")]

    def __str__(self) -> str:
        return f"{self.expected_on} {self.direction} {self.amount} {self.reference}"


class ReconciliationException(models.Model):
    """A line nobody expected, or an expectation the bank never showed, past its day plus one banking day: Finance's
    queue. It closes when a later run matches its item, when Finance matches it by hand, or when a write-off one
    person asked for is approved by another."""

    class Kind(models.TextChoices):
        UNMATCHED_LINE = "unmatched_line", "a statement line nobody expected"
        UNSEEN_EXPECTED = "unseen_expected", "an expected payment the bank has not shown"

    class State(models.TextChoices):
        OPEN = "open"
        WRITE_OFF_ASKED = "write_off_asked", "write-off asked (waits for a second person)"
        MATCHED = "matched"
        WRITTEN_OFF = "written_off", "written off"

    uuid = models.UUIDField(default=uuid4, unique=True, editable=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    line = models.OneToOneField(
        StatementLine, on_delete=models.PROTECT, null=True, blank=True, related_name="exception"
    )
    expected = models.OneToOneField(
        ExpectedPayment, on_delete=models.PROTECT, null=True, blank=True, related_name="exception"
    )
    state = models.CharField(max_length=16, choices=State.choices, default=State.OPEN)
    opened_at = models.DateTimeField()
    due_on = models.DateField(help_text="The banking day it became an exception (its day plus one banking day).")
    closed_at = models.DateTimeField(null=True, blank=True)
    write_off_reason = models.CharField(max_length=500, blank=True)
    write_off_asked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    write_off_approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        # A "break", as treasury teams call it: support staff's pages keep the word "exception" for their own.
        verbose_name = "reconciliation break"
        verbose_name_plural = "reconciliation breaks"
        permissions = [
            ("match_by_hand", "Can match statement lines and expected payments by hand"),
            ("ask_write_off", "Can ask for an exception to be written off"),
            ("approve_write_off", "Can approve another person's write-off"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="unmatched_line", line__isnull=False, expected__isnull=True))
                | Q(kind="unseen_expected", line__isnull=True, expected__isnull=False),
                name="reconciliation_exception_one_item",
            ),
            # The four-eyes rule, held by the database as well: nobody approves their own write-off.
            models.CheckConstraint(
                condition=Q(write_off_approved_by__isnull=True)
                | (
                    Q(write_off_asked_by__isnull=False)
                    & ~Q(write_off_approved_by=F("write_off_asked_by"))
                    & ~Q(write_off_reason="")
                ),
                name="reconciliation_write_off_second_person",
            ),
        ]
        indexes = [models.Index(fields=["state", "opened_at"], name="reconciliation_exception_open")]

    def __str__(self) -> str:
        return f"{self.kind} {self.uuid}"
