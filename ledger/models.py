"""The books (CONTRACT 17): journal entries of balanced postings, append-only, and the balance checkpoints batch
commands write. The ledger knows no transaction code: an entry names what caused it by uuid
(`transaction_uuid`, `payout_uuid`), and the state owner that posts it (transactions.state) decides its legs.

Sign: a posting's `amount` is credit-positive. A company's accounts are what the service owes it, so their balances
are positive when the merchant has money there; the service's `bank` and `clearing` are what it holds or is owed, so
their balances read negative (docs/ledger.md)."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from accounts.models import Company

USD = "USD"


class Account(models.TextChoices):
    """Where money is: five accounts each company has, three the service has (CONTRACT 17)."""

    INCOMING = "incoming"  # debits sent to the bank, not yet settled
    PENDING = "pending"  # settled, not yet available (fundsAvailableAt)
    AVAILABLE = "available"  # what may be paid out
    RESERVED = "reserved"  # held back by the company's reserve
    OUTGOING = "outgoing"  # credits, refunds and payouts taken from the balance, not yet settled
    BANK = "bank"  # the service's settlement account at the ODFI
    CLEARING = "clearing"  # ACH in transit
    FEES = "fees"


COMPANY_ACCOUNTS: tuple[str, ...] = (
    Account.INCOMING,
    Account.PENDING,
    Account.AVAILABLE,
    Account.RESERVED,
    Account.OUTGOING,
)
SERVICE_ACCOUNTS: tuple[str, ...] = tuple(a for a in Account.values if a not in COMPANY_ACCOUNTS)


class EntryType(models.TextChoices):
    """What an entry is (the `type` of GET /balance/transactions)."""

    CHARGE = "charge"
    SETTLEMENT = "settlement"
    FUNDS_AVAILABLE = "funds_available"
    RETURN = "return"
    REFUND = "refund"
    REVERSAL = "reversal"
    CREDIT = "credit"
    PAYOUT = "payout"
    PAYOUT_RETURN = "payout_return"
    TOP_UP = "top_up"
    RESERVE_HOLD = "reserve_hold"
    RESERVE_RELEASE = "reserve_release"
    ADJUSTMENT = "adjustment"


class JournalEntry(models.Model):
    """One movement of money: its postings sum to zero (a deferred constraint trigger on PostgreSQL)."""

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    type = models.CharField(max_length=16, choices=EntryType.choices)
    amount = models.BigIntegerField(help_text="Cents moved (each leg moves this much).")
    transaction_uuid = models.UUIDField(null=True, blank=True)
    payout_uuid = models.UUIDField(null=True, blank=True)
    description = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    effective_date = models.DateField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "journal entries"
        indexes = [models.Index(fields=["company", "transaction_uuid"], name="ledger_entry_transaction")]

    def __str__(self) -> str:
        return f"{self.type} {self.amount} ({self.uuid})"


class Posting(models.Model):
    """One leg of an entry: never updated, never deleted (a correction is a new entry)."""

    uuid = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    entry = models.ForeignKey(JournalEntry, on_delete=models.PROTECT, related_name="postings")
    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    account = models.CharField(max_length=10, choices=Account.choices)
    amount = models.BigIntegerField(help_text="Signed cents, credit-positive.")
    currency = models.CharField(max_length=3, default=USD)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            # A balance from its checkpoint: the postings after it (by id) and the late ones inside it (by time).
            models.Index(fields=["company", "id"], name="ledger_posting_company_id"),
            models.Index(fields=["company", "created_at"], name="ledger_posting_company_at"),
        ]

    def __str__(self) -> str:
        return f"{self.account} {self.amount:+d}"


class BalanceCheckpoint(models.Model):
    """A company's balance in one account over its postings with id <= through_id made at or before `as_of`, written
    by `checkpoint_ledger` for all of a company's accounts at once. A balance is its latest checkpoint plus the
    postings it leaves out (ledger.selectors): no row is updated by a posting."""

    company = models.ForeignKey(Company, on_delete=models.PROTECT, related_name="+", db_index=False)
    account = models.CharField(max_length=10, choices=Account.choices)
    currency = models.CharField(max_length=3, default=USD)
    through_id = models.BigIntegerField()
    as_of = models.DateTimeField()
    balance = models.BigIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["company", "through_id", "as_of", "account", "currency"], name="ledger_checkpoint_once"
            )
        ]
        indexes = [models.Index(fields=["company", "as_of"], name="ledger_checkpoint_company_at")]
