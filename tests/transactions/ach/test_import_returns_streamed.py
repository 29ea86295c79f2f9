"""`import_returns` reads the file from disk a line at a time: a return file is never held in memory whole, so a
day's returns cost the same memory as ten of them; and since it reads the file more than once, it reads a private copy:
a file that changes while it is imported is applied as the digest it is recorded under names it."""

from __future__ import annotations

import hashlib
import tracemalloc
from datetime import UTC, datetime

import pytest
from django.conf import settings

from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, return_csv, run
from transactions.ach.return_files import ReturnFileSource, read_return_file
from transactions.ach.returns import returns_import
from transactions.models import IngestionFile, Transaction
from transactions.sandbox.bank_files import return_file_for

RETURN_AT = datetime(2026, 12, 8, 14, tzinfo=UTC)


@pytest.mark.database_free
def test_a_large_file_is_checked_and_read_a_line_at_a_time(tmp_path):
    rows = [f"return,{index:015d},R01,,,," for index in range(1, 100_001)]
    path = tmp_path / "returns.csv"
    path.write_text(return_csv(rows))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        with (
            path.open("rb") as handle,
            ReturnFileSource(handle).private_copy(settings.IMPORT_RETURNS_MAX_BYTES) as (source, _digest),
        ):
            content = read_return_file(source)  # the check pass: every row and the header's controls
            items = sum(1 for _item in content.read())  # the pass the import applies
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (content.count, items) == (100_000, 100_000)
    assert size > 3_000_000
    assert peak < size / 8, f"{peak} bytes held at once for a {size}-byte file"


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["nacha", "csv"])
def test_a_file_with_a_byte_order_mark_and_crlf_line_ends_is_applied(company, tmp_path, kind):
    """What a bank's Windows tooling writes: the reader splits at newlines only and drops the carriage returns and
    the mark, read a line at a time as when it held the whole text."""
    txn = bank_txn(company, amount=1200)
    run("originate", "--at", MONDAY_MORNING)
    txn.refresh_from_db()
    if kind == "nacha":
        text = return_file_for([(txn, "R01", {})], at=RETURN_AT)
    else:
        text = return_csv([f"return,{txn.trace_number},R01,,,,"])
    path = tmp_path / f"returns.{kind}"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("ascii"))
    summary = run("import_returns", str(path), "--at", "2026-12-08T14:00:00Z")
    assert (summary["returns"], summary["unmatched"], summary["exceptions"]) == (1, [], [])
    assert Transaction.objects.get(pk=txn.pk).status == "Returned"


@pytest.mark.django_db
def test_a_file_that_changes_while_it_is_imported_is_applied_as_its_digest_names_it(company, tmp_path):
    txns = [bank_txn(company, amount=1200), bank_txn(company, amount=3400)]
    run("originate", "--at", MONDAY_MORNING)
    for txn in txns:
        txn.refresh_from_db()
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(txn, "R01", {}) for txn in txns], at=RETURN_AT))
    digest = hashlib.sha256(path.read_bytes()).hexdigest()

    def changed_midway(chunks, **_options):
        for part in chunks:
            with path.open("a") as handle:  # someone writes to the file the import is reading
                handle.write("9" * 94 + "\n")
            yield part

    with path.open("rb") as handle:
        summary = returns_import(
            source=ReturnFileSource(handle), filename=path.name, at=RETURN_AT, progress=changed_midway
        )
    assert path.read_bytes().endswith(b"9" * 94 + b"\n")  # the original did change
    assert (summary["returns"], summary["exceptions"]) == (2, [])
    assert IngestionFile.objects.get().sha256 == digest
    assert set(Transaction.objects.values_list("status", flat=True)) == {"Returned"}
