"""`import_returns` applies what it can (review d-8): an item it cannot apply is parked under `exceptions` with a
reason and the rest applied. A CSV file carries its origin, destination and controls in its file header line, or is
refused whole (security review N8). Hostile files are a clear one-line error, never a hang, a traceback or an echo
of the file's text (N13)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest
from django.core.management.base import CommandError

from tests.transactions.ach.conftest import MONDAY_MORNING, return_csv, run, saved_method_txn
from transactions.models import ChangeNotice, IngestionFile, ParkedReturnItem, TransactionReturn
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

RETURN_TIME = "2026-12-08T14:00:00Z"


@pytest.fixture
def noticed(method):
    """An entry of a saved method that went out Monday."""
    txn = saved_method_txn(method)
    run("originate", "--at", MONDAY_MORNING)
    txn.refresh_from_db()
    return txn


def _nacha(entries) -> list[str]:
    return return_file_for(entries, at=datetime(2026, 12, 8, 13, tzinfo=UTC)).rstrip("\n").split("\n")


def _write(tmp_path, text: str, name: str = "returns.ach"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _import(path) -> dict:
    return run("import_returns", str(path), "--at", RETURN_TIME)


def _refused(path, message: str) -> None:
    with pytest.raises(CommandError) as refused:
        _import(path)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert not IngestionFile.objects.exists() and not TransactionReturn.objects.exists()


def _addenda_code(lines: list[str], code: str) -> list[str]:
    """The file with its (single) addenda's code replaced: codes enter no control total."""
    index = next(n for n, line in enumerate(lines) if line.startswith(("798", "799")))
    lines[index] = lines[index][:3] + code + lines[index][6:]
    return lines


@pytest.mark.parametrize(
    ("code", "corrected", "reason"),
    [
        ("C01", {}, "C01 carries no valid corrected accountNumber"),
        ("C01", {"accountNumber": "12AB-34"}, "corrected accountNumber is not 4 to 17 digits"),
        ("C02", {"routingNumber": "123456789"}, "corrected routingNumber is not a 9-digit routing number"),
        ("C03", {"routingNumber": "011000015"}, "C03 carries no valid corrected accountNumber"),
        ("C05", {}, "C05 carries no valid corrected accountType"),
    ],
)
def test_a_notice_with_unusable_corrected_data_says_why(method, noticed, tmp_path, code, corrected, reason):
    summary = _import(_write(tmp_path, "\n".join(_nacha([(noticed, code, corrected)]))))
    assert (summary["notices"], summary["unmatched"]) == (0, [])
    [parked] = summary["exceptions"]
    assert (parked["trace"], parked["code"]) == (noticed.trace_number, code) and parked["reason"].startswith(reason)
    assert not ChangeNotice.objects.exists()
    method.refresh_from_db()
    assert (method.routing_number, method.account_number) == ("021000021", "000123456789")


@pytest.mark.parametrize(
    ("code", "shown", "reason"),
    [
        ("C92", "C92", "unknown change code"),
        ("C65", "C65", "refused notification of change (Incorrectly Formatted Corrected Data): nothing to correct"),
        ("c/1", None, "unknown change code"),
    ],
)
def test_unknown_and_refused_change_codes_are_parked(method, noticed, tmp_path, code, shown, reason):
    lines = _addenda_code(_nacha([(noticed, "C01", {"accountNumber": "5550001111"})]), code)
    summary = _import(_write(tmp_path, "\n".join(lines)))
    assert summary["exceptions"] == [{"trace": noticed.trace_number, "code": shown, "reason": reason}]
    assert ParkedReturnItem.objects.get().transaction_uuid == noticed.uuid
    method.refresh_from_db()
    assert method.account_number == "000123456789"


def test_a_nacha_file_is_told_by_its_101_header_and_trimmed_records_are_padded(noticed, tmp_path):
    lines = [line.rstrip(" ") for line in _nacha([(noticed, "R01", {})])]
    assert _import(_write(tmp_path, "\r\n".join(lines)))["returns"] == 1


def test_a_file_neither_nacha_nor_our_csv_is_refused_without_quoting_it(db, tmp_path):
    secret = "gAAAAAB-THIS-IS-A-FERNET-KEY-LINE="
    for text in (f"{secret}\n", f"record_type,original_trace_number,code,{secret}\nreturn,021000020000001,R01,x\n"):
        path = _write(tmp_path, text, "key.txt")
        with pytest.raises(CommandError, match="neither a NACHA file header") as refused:
            _import(path)
        assert secret not in str(refused.value)


def test_unknown_csv_columns_are_counted_never_quoted(noticed, tmp_path):
    secret = "gAAAAAB-THIS-IS-A-FERNET-KEY-LINE="
    path = _write(
        tmp_path,
        return_csv(
            [f"return,{noticed.trace_number},R01,x"], columns=f"record_type,original_trace_number,code,{secret}"
        ),
    )
    with pytest.raises(CommandError, match="1 unknown") as refused:
        _import(path)
    assert secret not in str(refused.value)


# --- CSV: origin, destination and controls (N8) ---------------------------------------------------------------


def _csv_noc(noticed) -> list[str]:
    return [f"noc,{noticed.trace_number},C01,,999988887777,"]


def test_a_csv_noc_with_its_file_header_is_applied(method, noticed, tmp_path):
    summary = _import(_write(tmp_path, return_csv(_csv_noc(noticed)), "noc.csv"))
    assert summary["notices"] == 1
    method.refresh_from_db()
    assert method.account_number == "999988887777"


def _header_replaced(text: str, position: int, value: str) -> str:
    header, rest = text.split("\n", 1)
    fields = header.split(",")
    fields[position] = value
    return ",".join(fields) + "\n" + rest


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda text: text.split("\n", 1)[1], "neither a NACHA file header"),  # the review's reproduction
        (lambda text: _header_replaced(text, 1, "011000015"), "file header immediate destination is '011000015'"),
        (lambda text: _header_replaced(text, 2, "011000015"), "file header immediate origin is '011000015'"),
        (lambda text: _header_replaced(text, 2, "x"), "immediate origin is not a 9-digit routing number"),
        (lambda text: _header_replaced(text, 3, "2"), "record count differs from the 1 rows"),
        (lambda text: _header_replaced(text, 4, "0000000001"), "trace hash is '0000000001', where the rows'"),
        (lambda text: ",".join(text.split(",")[:4]) + "\n" + text.split("\n", 1)[1], "has 4 fields, expected 5"),
    ],
    ids=["no file header", "destination", "origin", "origin not digits", "count", "trace hash", "short header"],
)
def test_a_csv_noc_without_matching_origin_and_controls_is_refused_whole(method, noticed, tmp_path, change, message):
    _refused(_write(tmp_path, change(return_csv(_csv_noc(noticed))), "noc.csv"), message)
    method.refresh_from_db()
    assert method.account_number == "000123456789"
    assert not ChangeNotice.objects.exists()


def test_a_wrong_csv_trace_hash_names_the_value_read_and_the_value_expected(noticed, tmp_path):
    expected = str(int(noticed.trace_number)).rjust(10, "0")[-10:]
    _refused(
        _write(tmp_path, return_csv(_csv_noc(noticed), hash_value="0000000001"), "noc.csv"),
        f"trace hash is '0000000001', where the rows' trace numbers give '{expected}' (their sum, last 10 digits)",
    )


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("noc,0210000200000A1,C01,,999988887777,", "line 3: original_trace_number must be 15 digits"),
        ("noc,{trace},C0,,999988887777,", "line 3: code must be a letter and two digits"),
        ("refund,{trace},C01,,999988887777,", "line 3: record_type must be return or noc"),
    ],
)
def test_a_malformed_csv_row_refuses_the_file_naming_the_line(noticed, tmp_path, row, message):
    row = row.format(trace=noticed.trace_number)
    text = return_csv([row], hash_value="0000000001")
    _refused(_write(tmp_path, text, "noc.csv"), message)


def test_a_csv_with_an_unknown_return_code_parks_it(noticed, tmp_path):
    summary = _import(_write(tmp_path, return_csv([f"return,{noticed.trace_number},R99,,,"]), "r.csv"))
    assert summary["exceptions"] == [{"trace": noticed.trace_number, "code": "R99", "reason": "unknown return code"}]


# --- hostile paths and bytes (N13) ----------------------------------------------------------------------------


def test_a_symlink_is_not_followed(noticed, tmp_path):
    target = _write(tmp_path, "\n".join(_nacha([(noticed, "R01", {})])))
    link = tmp_path / "link.ach"
    link.symlink_to(target)
    _refused(link, "it is a symbolic link")


def test_a_fifo_is_refused_at_once_not_waited_on(db, tmp_path):
    fifo = tmp_path / "pipe.ach"
    os.mkfifo(fifo)
    _refused(fifo, "not a regular file")


def test_a_directory_is_refused(db, tmp_path):
    _refused(tmp_path, "not a regular file")


def test_a_nul_byte_in_a_nacha_trace_number_is_a_clear_error(noticed, tmp_path):
    lines = _nacha([(noticed, "R01", {})])
    index = next(n for n, line in enumerate(lines) if line.startswith("799"))
    lines[index] = lines[index][:10] + "\x00" + lines[index][11:]
    _refused(_write(tmp_path, "\n".join(lines)), "the file holds a NUL character")
    lines[index] = lines[index][:10] + "A" + lines[index][11:]
    _refused(_write(tmp_path, "\n".join(lines)), f"line {index + 1}: the original entry trace number is not 15 digits")
