"""Balances (CONTRACT 17), exact at any moment, with no row that a posting updates (issue 63).

A company's balance in an account as of T is the sum of its postings made at or before T. Read as: its latest
checkpoint made for a moment at or before T (through_id N, as_of S, balance B, written by `checkpoint_ledger`) plus
the postings it leaves out: those after it (id > N) made at or before T, and those inside it by id made after S and
at or before T (a command run with `--at` in the past writes postings dated before later ones). Both sets are read
through the (company, id) and (company, created_at) indexes and hold only what came since the checkpoint.
docs/ledger.md, "Balances", says why this is exact."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet, Sum

from ledger.models import COMPANY_ACCOUNTS, USD, Account, BalanceCheckpoint, Posting


@dataclass(frozen=True)
class Checkpoint:
    through_id: int
    as_of: datetime | None
    balances: dict[str, int]


NO_CHECKPOINT = Checkpoint(through_id=0, as_of=None, balances={})


def checkpoint_before(*, company_id: int, moment: datetime | None) -> Checkpoint:
    """The company's latest checkpoint made for `moment` or earlier (any, when None)."""
    rows = BalanceCheckpoint.objects.filter(company_id=company_id, currency=USD)
    if moment is not None:
        rows = rows.filter(as_of__lte=moment)
    latest = rows.order_by("-as_of", "-through_id").values_list("through_id", "as_of").first()
    if latest is None:
        return NO_CHECKPOINT
    through_id, as_of = latest
    balances = dict(
        rows.filter(through_id=through_id, as_of=as_of).values_list("account", "balance"),
    )
    return Checkpoint(through_id, as_of, balances)


def postings_since(checkpoint: Checkpoint, *, company_id: int, moment: datetime | None) -> QuerySet[Posting]:
    """The company's postings made at or before `moment` that `checkpoint` leaves out."""
    rows = Posting.objects.filter(company_id=company_id, currency=USD)
    if moment is not None:
        rows = rows.filter(created_at__lte=moment)
    if checkpoint.as_of is None:
        return rows
    after = Q(id__gt=checkpoint.through_id)
    late = Q(id__lte=checkpoint.through_id, created_at__gt=checkpoint.as_of)
    return rows.filter(after | late)


def account_balances(*, company_id: int, moment: datetime | None = None) -> dict[str, int]:
    """Every account's balance for the company (its own five and its share of the service's), as of `moment`."""
    checkpoint = checkpoint_before(company_id=company_id, moment=moment)
    totals = dict.fromkeys(Account.values, 0)
    for account, balance in checkpoint.balances.items():
        totals[account] += balance
    since = postings_since(checkpoint, company_id=company_id, moment=moment)
    for account, amount in since.values("account").annotate(total=Sum("amount")).values_list("account", "total"):
        totals[account] += amount
    return totals


def balance_get(*, company, moment: datetime | None = None) -> dict[str, int]:
    """GET /balance: the company's five accounts."""
    totals = account_balances(company_id=company.pk, moment=moment)
    return {account: totals[account] for account in COMPANY_ACCOUNTS}
