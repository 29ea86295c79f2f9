"""`import_returns` trusts nothing: the header must be addressed to us from our bank, every batch and file
control record must add up, the file must fit the size limit; a file that fails is rejected whole with a
clear message, and a malformed CSV is a clear error, not a traceback."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.management.base import CommandError

from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, return_csv, run
from transactions.models import IngestionFile, Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

RETURN_TIME = "2026-12-08T14:00:00Z"


@pytest.fixture
def originated(company):
    txns = [bank_txn(company, amount=1200), bank_txn(company, amount=3400)]
    run("originate", "--at", MONDAY_MORNING)
    for txn in txns:
        txn.refresh_from_db()
    return txns


def _lines(txns) -> list[str]:
    text = return_file_for([(txn, "R01", {}) for txn in txns], at=datetime(2026, 12, 8, 13, tzinfo=UTC))
    return text.rstrip("\n").split("\n")


def _record(lines, record_type: str) -> int:
    return next(index for index, line in enumerate(lines) if line[0] == record_type and line != "9" * 94)


def _replace(line: str, start: int, end: int, value: str) -> str:
    assert len(value) == end - start
    return line[:start] + value + line[end:]


def _import_refused(tmp_path, lines, match: str) -> None:
    path = tmp_path / "returns.ach"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(CommandError, match=match):
        run("import_returns", str(path), "--at", RETURN_TIME)
    assert not IngestionFile.objects.exists()
    assert set(Transaction.objects.values_list("status", flat=True)) == {"Processing"}


def test_an_untampered_file_is_applied(originated, tmp_path):
    path = tmp_path / "returns.ach"
    path.write_text("\n".join(_lines(originated)) + "\n")
    assert run("import_returns", str(path), "--at", RETURN_TIME)["returns"] == 2


@pytest.mark.parametrize(
    ("start", "end", "name"), [(3, 13, "immediate destination"), (13, 23, "immediate origin")], ids=["to", "from"]
)
def test_a_file_not_addressed_to_us_by_our_bank_is_refused(originated, tmp_path, start, end, name):
    lines = _lines(originated)
    lines[0] = _replace(lines[0], start, end, " 011000015")
    _import_refused(tmp_path, lines, f"file header {name} is '011000015'")


# (record type, start, end, a wrong value, what the message names)
TAMPERING = [
    ("8", 4, 10, "000009", "batch control entry_addenda_count"),
    ("8", 10, 20, "0000000001", "batch control entry_hash"),
    ("8", 20, 32, "000000000001", "batch control debit_total"),
    ("8", 32, 44, "000000000001", "batch control credit_total"),
    ("9", 1, 7, "000009", "file control batch_count"),
    ("9", 7, 13, "000009", "file control block_count"),
    ("9", 13, 21, "00000009", "file control entry_addenda_count"),
    ("9", 21, 31, "0000000001", "file control entry_hash"),
    ("9", 31, 43, "000000000001", "file control debit_total"),
]


@pytest.mark.parametrize(("record", "start", "end", "value", "message"), TAMPERING, ids=[t[4] for t in TAMPERING])
def test_control_records_that_do_not_add_up_reject_the_whole_file(
    originated, tmp_path, record, start, end, value, message
):
    lines = _lines(originated)
    index = _record(lines, record)
    lines[index] = _replace(lines[index], start, end, value)
    _import_refused(tmp_path, lines, message)


def test_an_entry_amount_changed_after_the_controls_were_written_is_refused(originated, tmp_path):
    lines = _lines(originated)
    index = _record(lines, "6")
    lines[index] = _replace(lines[index], 29, 39, "0000009999")
    _import_refused(tmp_path, lines, "batch control debit_total")


def test_a_file_without_its_file_control_is_refused(originated, tmp_path):
    lines = [line for line in _lines(originated) if line[0] != "9"]
    _import_refused(tmp_path, lines, "no file control record")


def test_a_file_over_the_size_limit_is_refused_unread(originated, tmp_path, settings):
    settings.IMPORT_RETURNS_MAX_BYTES = 500
    _import_refused(tmp_path, _lines(originated), "larger than 500 bytes")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["return,021000020000001,R01" + "x" * 200_000], "malformed CSV"),
        (['return,"021000020000001"x,R01'], "malformed CSV"),
        (['return,"021000020000001,R01'], "malformed CSV"),
    ],
    ids=["field over the csv module's limit", "text after a closing quote", "unterminated quote"],
)
def test_a_malformed_csv_is_a_clear_error(originated, tmp_path, rows, message):
    path = tmp_path / "returns.csv"
    path.write_text(
        return_csv(rows, columns="record_type,original_trace_number,code", hash_value="0021000020000001"[-10:])
    )
    with pytest.raises(CommandError, match=f"returns.csv: line [0-9]+: {message}"):
        run("import_returns", str(path), "--at", RETURN_TIME)
    assert not IngestionFile.objects.exists()


def test_an_empty_file_is_called_empty(tmp_path):
    """F24: not "missing columns"."""
    path = tmp_path / "returns.csv"
    path.write_text("\n")
    with pytest.raises(CommandError, match="returns.csv: the file is empty"):
        run("import_returns", str(path), "--at", RETURN_TIME)


def test_csv_column_names_read_in_any_case(originated, tmp_path):
    """F24: a bank's `Record_Type,Original_Trace_Number,CODE` header is the same header."""
    (txn, _other) = originated
    path = tmp_path / "returns.csv"
    path.write_text(return_csv([f"return,{txn.trace_number},R01"], columns="Record_Type,Original_Trace_Number,CODE"))
    summary = run("import_returns", str(path), "--at", RETURN_TIME)
    assert (summary["returns"], summary["unmatched"], summary["alreadyImported"]) == (1, [], False)
