"""Which entry a return or notice of change answers (CONTRACT 12 "Matching", changed 2026-12-02).

Trace numbers repeat (7 digits of sequence per originating DFI), so an item applies only to the one entry that agrees
with everything the bank sent back: the original trace number, the return batch's Company Identification (the
company's `ach_company_id`), the original receiving DFI (the first 8 digits of the routing number), the account
number as it was sent, for a return its amount and direction too, and a trace date on or before the file's date
inside the return window. None, or more than one: the item names no entry, and says why. A sandbox entry is never a
candidate: sandbox simulations name their entry themselves (transactions.sandbox.services).

A CSV file carries only the trace number and the code: its items are matched on what they carry, so a trace number
two live entries share inside the window parks the item."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import nacha
from accounts.models import Company
from transactions import calendar
from transactions.models import Transaction, TransactionType
from vault.crypto import account_number_hash
from vault.db import values_in

# Nacha's longest return window is 60 calendar days after settlement (unauthorized consumer debits, and the rule's
# deadline is the banking day after the 60th day), plus a few days for the return file to reach us.
RETURN_WINDOW = timedelta(days=60 + 5)

# Each thing an item says of its original entry, by the name a parked item's reason gives it.
COMPANY = "companyIdentification"
RDFI = "receivingDfi"
ACCOUNT = "accountNumber"
AMOUNT = "amount"
DIRECTION = "direction"

NO_ENTRY = "no entry with this trace number in the return window"


@dataclass(frozen=True, slots=True)
class Candidate:
    """An entry of ours with the item's trace number, as the matcher reads it."""

    pk: int
    company_id: int
    amount: int
    is_debit: bool
    rdfi: str
    account_hash: str


@dataclass(frozen=True, slots=True)
class Match:
    """The one entry an item answers, or why it answers none (`pk` None)."""

    pk: int | None = None
    company_id: int | None = None
    reason: str | None = None


def window(at: datetime, file_date: date | None) -> tuple[date, date]:
    """(first, last) trace date an item of a file dated `file_date` may answer (a CSV file has no date: the day it
    is imported, `at`, stands for it)."""
    last = file_date if file_date is not None else calendar.eastern_now(at).date()
    return last - RETURN_WINDOW, last


CANDIDATE_COLUMNS = ("trace_number", "pk", "company_id", "amount", "type", "routing_number", "account_number_hash")


def _candidates(traces: set[str], first: date, last: date) -> tuple[dict[str, list[Candidate]], dict[int, str]]:
    """The live entries with these trace numbers traced inside [first, last], by trace number, and their companies'
    Company Identification: one query for the entries (through the trace index) and one for their companies."""
    # The trace index holds only entries that have a trace number; PostgreSQL cannot see that an array of more than
    # 100 trace numbers excludes the empty one, so without the condition spelled out it scans the whole table.
    rows = list(
        Transaction.objects.filter(
            values_in(traces, field="trace_number", array_type="text"), trace_date__gte=first, trace_date__lte=last
        )
        .exclude(trace_number="")
        .values_list(*CANDIDATE_COLUMNS)
    )
    company_ids = {row[2] for row in rows}
    companies = dict(Company.objects.filter(pk__in=company_ids, is_sandbox=False).values_list("pk", "ach_company_id"))
    found: dict[str, list[Candidate]] = {}
    for trace, pk, company_id, amount, txn_type, routing, account_hash in rows:
        if company_id not in companies:
            continue  # a sandbox entry: never a candidate for a bank's file
        found.setdefault(trace, []).append(
            Candidate(pk, company_id, amount, txn_type == TransactionType.DEBIT, routing[:8], account_hash)
        )
    return found, companies


def disagreements(
    item: nacha.ReturnedItem, candidate: Candidate, ach_company_id: str, account_hash: str | None
) -> list[str]:
    """What the item says of its original entry that this candidate does not agree with (nothing it does not say)."""
    differ = []
    if item.company_identification is not None and item.company_identification != ach_company_id.strip():
        differ.append(COMPANY)
    if item.original_rdfi is not None and item.original_rdfi != candidate.rdfi:
        differ.append(RDFI)
    if account_hash is not None and account_hash != candidate.account_hash:
        differ.append(ACCOUNT)
    if item.kind == "return" and item.amount is not None and item.amount != candidate.amount:
        differ.append(AMOUNT)
    if item.is_debit is not None and item.is_debit != candidate.is_debit:
        differ.append(DIRECTION)
    return differ


def matches(items: Sequence[nacha.ReturnedItem], *, at: datetime, file_date: date | None) -> list[Match]:
    """For each item, the one live entry it answers, or why none: a set of items at once, in two queries."""
    first, last = window(at, file_date)
    found, companies = _candidates({item.original_trace for item in items}, first, last)
    hashes: dict[str, str] = {}

    def match(item: nacha.ReturnedItem) -> Match:
        candidates = found.get(item.original_trace)
        if not candidates:
            return Match(reason=NO_ENTRY)
        account_hash = None
        if item.account_number is not None:
            account_hash = hashes.get(item.account_number)
            if account_hash is None:
                account_hash = hashes[item.account_number] = account_number_hash(item.account_number)
        differing = [
            disagreements(item, candidate, companies[candidate.company_id], account_hash) for candidate in candidates
        ]
        agreeing = [candidate for candidate, differ in zip(candidates, differing, strict=True) if not differ]
        if len(agreeing) == 1:
            return Match(agreeing[0].pk, agreeing[0].company_id)
        if agreeing:
            return Match(reason=f"{len(agreeing)} entries agree with it: nothing applied")
        nearest = min(differing, key=len)
        return Match(reason=f"no entry with this trace number agrees with it ({', '.join(nearest)} differ)")

    return [match(item) for item in items]
