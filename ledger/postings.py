"""The one way money is written (CONTRACT 17): an entry of balanced postings, one entry per row a template moves.

Only the state owner calls it (transactions.state; tests/ledger/test_who_posts.py scans for any other caller), with
the rows it moved, in the database transaction that moved them. A template names its legs: each moves the row's
amount from one account to another (the source's balance goes down, the target's up), so its postings sum to zero
by construction; `entry_post` checks any other set of postings before it writes them (SQLite has no deferred
trigger; PostgreSQL's refuses an unbalanced entry at commit all the same)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connection, transaction
from django.db.models import QuerySet

from ledger.models import USD, Account, EntryType, JournalEntry, Posting

# A leg's account that each row names itself (its `holder` column): where the money it moves sits today, when that
# depends on the row (a settled debit's money is `pending` until its funds are available, `available` after).
HOLDER = "holder"
ACCOUNTS = frozenset(Account.values)


class UnbalancedEntry(ValueError):
    """A programming error: postings that do not sum to zero, or name no known account."""


@dataclass(frozen=True)
class Leg:
    """The row's amount moves out of `source` into `target`."""

    source: str
    target: str

    def postings(self, amount: int, holder: str | None = None) -> tuple[tuple[str, int], tuple[str, int]]:
        def account(name: str) -> str:
            return holder if name == HOLDER and holder is not None else name

        return (account(self.source), -amount), (account(self.target), amount)


@dataclass(frozen=True)
class Template:
    """A journal template: the entry's type, its legs, and the line a posting shows."""

    type: str
    legs: tuple[Leg, ...]
    description: str = ""

    def __post_init__(self) -> None:
        named = {a for leg in self.legs for a in (leg.source, leg.target)}
        if self.type not in EntryType.values or not self.legs or not named <= ACCOUNTS | {HOLDER}:
            raise UnbalancedEntry(f"template {self.type} names an unknown type or account: {sorted(named)}")

    def net(self, holder: str | None = None) -> dict[str, int]:
        """What one unit of amount does to each account (zero sums left out)."""
        net: dict[str, int] = {}
        for leg in self.legs:
            for account, amount in leg.postings(1, holder):
                net[account] = net.get(account, 0) + amount
        return {account: amount for account, amount in net.items() if amount}


def _legs(template: Template, amount: int, holder: str | None) -> list[tuple[str, int]]:
    return [posting for leg in template.legs for posting in leg.postings(amount, holder)]


def _checked(postings: Sequence[tuple[str, int]]) -> Sequence[tuple[str, int]]:
    if sum(amount for _account, amount in postings) != 0 or not postings:
        raise UnbalancedEntry(f"postings {list(postings)} do not sum to zero")
    unknown = [account for account, _amount in postings if account not in ACCOUNTS]
    if unknown:
        raise UnbalancedEntry(f"unknown accounts {unknown}")
    return postings


def entry_post(
    *,
    company_id: int,
    type: str,
    postings: Sequence[tuple[str, int]],
    at,
    transaction_uuid=None,
    effective_date=None,
    description: str = "",
) -> JournalEntry:
    """One entry of any postings (account, signed cents), refused unless they sum to zero."""
    _checked(postings)
    amount = sum(amount for _account, amount in postings if amount > 0)
    with transaction.atomic(savepoint=False):
        entry = JournalEntry.objects.create(
            company_id=company_id,
            type=type,
            amount=amount,
            transaction_uuid=transaction_uuid,
            description=description[:255],
            created_at=at,
            effective_date=effective_date,
        )
        Posting.objects.bulk_create(
            Posting(entry=entry, company_id=company_id, account=account, amount=value, created_at=at)
            for account, value in postings
        )
    return entry


# The columns a template's source gives for each row, in this order.
SOURCE_COLUMNS = ("company_id", "reference", "amount", "effective_date", "holder")


def template_post(template: Template, source: QuerySet, *, at) -> int:
    """An entry of `template` for every row of `source` (a queryset of values_list(SOURCE_COLUMNS): company id, the
    transaction's uuid, cents, effective date, the account HOLDER means for it), in the caller's transaction.
    PostgreSQL: one INSERT of the entries and their postings, the rows read server-side; elsewhere two bulk inserts.
    Rows of no amount post nothing. Returns the number of entries."""
    if connection.vendor == "postgresql":
        return _template_post_sql(template, source, at=at)
    rows = [row for row in source if row[2]]
    if not rows:
        return 0
    with transaction.atomic(savepoint=False):
        entries = JournalEntry.objects.bulk_create(
            JournalEntry(
                company_id=company_id,
                type=template.type,
                amount=amount,
                transaction_uuid=reference,
                description=template.description,
                created_at=at,
                effective_date=effective_date,
            )
            for company_id, reference, amount, effective_date, _holder in rows
        )
        Posting.objects.bulk_create(
            (
                Posting(entry=entry, company_id=entry.company_id, account=account, amount=value, created_at=at)
                for entry, row in zip(entries, rows, strict=True)
                for account, value in _checked(_legs(template, row[2], row[4]))
            ),
            batch_size=1000,
        )
    return len(rows)


def _legs_values(template: Template) -> tuple[str, list[Any]]:
    """The template's postings per unit as SQL VALUES (account or HOLDER, sign, leg order)."""
    values, params = [], []
    named = ((account, sign) for leg in template.legs for account, sign in ((leg.source, -1), (leg.target, 1)))
    for position, (account, sign) in enumerate(named):
        values.append("(%s, %s::bigint, %s::int)")
        params += [account, sign, position]
    return ", ".join(values), params


def _template_post_sql(template: Template, source: QuerySet, *, at) -> int:
    try:
        source_sql, source_params = source.query.sql_with_params()
    except EmptyResultSet:  # a source no row can match (Django has no SQL for it)
        return 0
    legs_sql, legs_params = _legs_values(template)
    sql = (
        f"WITH src ({', '.join(SOURCE_COLUMNS)}) AS ({source_sql}), "  # noqa: S608 - compiled ORM SQL, constants
        "e AS (INSERT INTO ledger_journalentry "
        "(uuid, company_id, type, amount, transaction_uuid, description, created_at, effective_date) "
        "SELECT gen_random_uuid(), company_id, %s, amount, reference, %s, %s, effective_date FROM src "
        "WHERE amount <> 0 RETURNING id, company_id, amount, transaction_uuid) "
        "INSERT INTO ledger_posting (uuid, entry_id, company_id, account, amount, currency, created_at) "
        "SELECT gen_random_uuid(), e.id, e.company_id, "
        f"CASE WHEN l.account = '{HOLDER}' THEN src.holder ELSE l.account END, e.amount * l.sign, %s, %s "
        f"FROM e JOIN src ON src.reference = e.transaction_uuid CROSS JOIN (VALUES {legs_sql}) AS l (account, sign, n) "
        "ORDER BY e.id, l.n"
    )
    params = [*source_params, template.type, template.description, at, USD, at, *legs_params]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount // (2 * len(template.legs))
