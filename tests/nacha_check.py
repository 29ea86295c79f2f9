"""Every NACHA file the tests write is read back by readers that share no code with transactions.ach.nacha:
achkit (PyPI, pinned in requirements.txt; the stricter of the two candidates, see docs/ach-rules.md) and our own
tests/transactions/ach/nacha_reader.py. tests/conftest.py runs `problems` over each file at the end of every test.

`rule_problems` checks what such readers miss (CONTRACT 12): no TEL or WEB credit, and each entry's SEC code against
its account holder."""

from __future__ import annotations

from collections.abc import Callable

from achkit.validate import validate as achkit_validate

from tests.transactions.ach import nacha_reader

CONSUMER_SEC_CODES = {"PPD", "WEB", "TEL"}
ORGANIZATION_SEC_CODES = {"CCD"}
DEBIT_ONLY_SEC_CODES = {"TEL", "WEB"}


def problems(text: str) -> list[str]:
    """What the independent readers find wrong with one origination file; empty when it is right."""
    found = [
        f"achkit {error['code']} at {error['field']}: {error['message']}" for error in achkit_validate(text)["errors"]
    ]
    try:
        nacha_reader.read(text)
    except nacha_reader.Invalid as exc:
        found.append(f"nacha_reader: {exc}")
    return found


def rule_problems(text: str, holder_of: Callable[[str], str | None]) -> list[str]:
    """The Nacha rules no reader checks, entry by entry. `holder_of(trace)` is the entry's account holder
    (`consumer`, `organization`), or None when the charge named no customer (the direction rule only)."""
    found = []
    for batch in nacha_reader.read(text).batches:
        for entry in batch.entries:
            where = f"{batch.sec} batch {batch.number}, trace {entry.trace}"
            if batch.sec in DEBIT_ONLY_SEC_CODES and entry.transaction_code in nacha_reader.CREDIT_CODES:
                found.append(f"{where}: a {batch.sec} entry must be a debit (code {entry.transaction_code})")
            holder = holder_of(entry.trace)
            allowed = {"consumer": CONSUMER_SEC_CODES, "organization": ORGANIZATION_SEC_CODES}.get(holder or "")
            if allowed is not None and batch.sec not in allowed:
                found.append(f"{where}: {batch.sec} to a {holder} account")
    return found
