"""`audit_return_matches`: every return and notice of change applied before matching changed (CONTRACT 12
"Matching", 2026-12-02) re-checked against the new rule with what the database still knows, changing nothing.

The bank's file itself is not kept, so what an item said of its original entry is what the old matcher made sure
of: the trace number, and for a return the amount and direction of the entry it was applied to. An application is
listed when the new rule would not have made it: the entry was a sandbox entry but the file came from the bank, or
a live entry but the file was a sandbox simulation (the security review's C1), it was traced after the file was
received, or another live entry of the window shares the trace number (and a return's amount and direction): the
bank's Company Identification and account number would then have chosen between them, or parked the item. Set
based: a query for the applied rows, one for the entries sharing their trace numbers, one for the companies."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime

from accounts.models import Company
from transactions import calendar
from transactions.ach.matching import RETURN_WINDOW
from transactions.models import ChangeNotice, Transaction, TransactionReturn
from vault.db import values_in
from vault.records import iso_utc

SANDBOX_FILE_PREFIX = "sandbox-"  # transactions.sandbox.services names the files its simulations write so
AUDIT_CHUNK = 5_000


@dataclass(frozen=True)
class _Applied:
    kind: str  # "return" or "notice"
    code: str
    received_at: datetime
    file_uuid: str | None
    from_sandbox: bool  # the file was a sandbox simulation's
    changed: dict
    entry: dict  # the entry it was applied to: the transaction's columns the audit reads


ENTRY_COLUMNS = ("pk", "uuid", "company_id", "trace_number", "trace_date", "amount", "type", "status")


def _applied(since: date | None) -> Iterator[_Applied]:
    """The returns and notices applied since `since` (all of them without it), oldest first, by id."""
    kinds = (
        ("return", TransactionReturn, "returned_at", ("return_code",)),
        ("notice", ChangeNotice, "noc_received_at", ("change_code", "old_value", "new_value")),
    )
    for kind, model, received, extra in kinds:
        rows = model.objects.exclude(transaction__trace_number="").order_by("pk")
        if since is not None:
            rows = rows.filter(**{f"{received}__date__gte": since})
        columns = [
            received,
            "ingestion_file__uuid",
            "ingestion_file__filename",
            *extra,
            *(f"transaction__{name}" for name in ENTRY_COLUMNS),
        ]
        for values in _keyset(rows, columns):
            at, file_uuid, filename, *rest = values
            details, entry = rest[: len(extra)], dict(zip(ENTRY_COLUMNS, rest[len(extra) :], strict=True))
            if kind == "return":
                (code,) = details
                changed = {"status": "Returned", "returnCode": code}
            else:
                code, old, new = details
                changed = {"changeCode": code, "oldValue": old, "newValue": new}
            yield _Applied(
                kind=kind,
                code=code,
                received_at=at,
                file_uuid=str(file_uuid) if file_uuid else None,
                from_sandbox=(filename or "").startswith(SANDBOX_FILE_PREFIX),
                changed=changed,
                entry=entry,
            )


def _keyset(rows, columns: list[str]) -> Iterator[tuple]:
    """The rows' values a chunk at a time by id (no server-side cursor: pgbouncer in transaction mode has none)."""
    last = 0
    while True:
        chunk = list(rows.filter(pk__gt=last).values_list("pk", *columns)[:AUDIT_CHUNK])
        for pk, *values in chunk:
            last = pk
            yield values
        if len(chunk) < AUDIT_CHUNK:
            return


def _chunks(items: Iterator[_Applied]) -> Iterator[list[_Applied]]:
    chunk: list[_Applied] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == AUDIT_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _why(applied: _Applied, sandbox: set[int], others: list[dict]) -> str | None:
    entry = applied.entry
    received_on = calendar.eastern_now(applied.received_at).date()
    if applied.from_sandbox and entry["company_id"] not in sandbox:
        return "a sandbox simulation's file was applied to a live entry"
    if not applied.from_sandbox and entry["company_id"] in sandbox:
        return "the bank's file was applied to a sandbox entry"
    if applied.from_sandbox:
        return None  # a simulation names its sandbox entry (before 2026-12-02, the newest of its trace number)
    if entry["trace_date"] > received_on:
        return "the entry was sent after the file was received"
    if others:
        return f"{len(others)} other live entries share its trace number in the window: the bank's file chose"
    return None


def return_matches_audit(*, since: date | None = None) -> dict:
    """What the new matching rule would not have applied as it was: each such return or notice, its entry and
    company, what it changed, and the other entries the rule would have chosen between. Changes nothing."""
    sandbox = set(Company.objects.filter(is_sandbox=True).values_list("pk", flat=True))
    listed, checked = [], {"returns": 0, "notices": 0}
    for chunk in _chunks(_applied(since)):
        earliest = min(item.received_at for item in chunk)
        floor = calendar.eastern_now(earliest).date() - RETURN_WINDOW
        sharing: dict[str, list[dict]] = {}
        rows = Transaction.objects.filter(
            values_in({item.entry["trace_number"] for item in chunk}, field="trace_number", array_type="text"),
            trace_date__gte=floor,
        ).values(*ENTRY_COLUMNS)
        for row in rows:
            sharing.setdefault(row["trace_number"], []).append(row)
        for item in chunk:
            checked["returns" if item.kind == "return" else "notices"] += 1
            others = _other_candidates(item, sharing.get(item.entry["trace_number"], []), sandbox)
            why = _why(item, sandbox, others)
            if why is not None:
                listed.append((item, why, others))
    company_ids = {row["company_id"] for item, _why, others in listed for row in [item.entry, *others]}
    companies = dict(Company.objects.filter(pk__in=company_ids).values_list("pk", "uuid"))
    return {
        "checked": checked,
        "wouldHaveGoneElsewhere": [_listed(item, why, others, companies, sandbox) for item, why, others in listed],
    }


def _other_candidates(item: _Applied, sharing: list[dict], sandbox: set[int]) -> list[dict]:
    """The live entries other than its own the new rule would also have weighed: same trace number, traced inside
    the window before the file was received, and for a return the same amount and direction."""
    received_on = calendar.eastern_now(item.received_at).date()
    entry = item.entry
    return [
        row
        for row in sharing
        if row["pk"] != entry["pk"]
        and row["company_id"] not in sandbox
        and received_on - RETURN_WINDOW <= row["trace_date"] <= received_on
        and (item.kind == "notice" or (row["amount"], row["type"]) == (entry["amount"], entry["type"]))
    ]


def _entry_record(row: dict, companies: dict[int, object], sandbox: set[int]) -> dict:
    return {
        "transactionUuid": str(row["uuid"]),
        "companyUuid": str(companies.get(row["company_id"], "")),
        "sandbox": row["company_id"] in sandbox,
        "traceNumber": row["trace_number"],
        "traceDate": row["trace_date"].isoformat() if row["trace_date"] else None,
        "status": row["status"],
    }


def _listed(item: _Applied, why: str, others: list[dict], companies: dict, sandbox: set[int]) -> dict:
    return {
        "kind": item.kind,
        "code": item.code,
        "receivedAt": iso_utc(item.received_at),
        "ingestionFileUuid": item.file_uuid,
        "appliedTo": _entry_record(item.entry, companies, sandbox),
        "changed": item.changed,
        "why": why,
        "candidates": [_entry_record(row, companies, sandbox) for row in others],
    }
