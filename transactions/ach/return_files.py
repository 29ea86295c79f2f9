"""Reading an RDFI's return / notice-of-change file before anything is applied: NACHA (a file opening with its
`101` file header) or the CSV equivalent (docs/returns.md, "Return and NOC CSV format").

Refused whole (ReturnFileError, nothing applied): a file not addressed to us by our bank, not well formed, or whose
control records do not add up; the same for a CSV file, whose first line is its file header. Parked (listed under
`exceptions` with a reason, every other item applied): an item with an unknown or refused code, or a notice of
change whose corrected data cannot be applied. No message ever quotes the file's text beyond a code and a trace
number that passed their shape check (an operator may point the command at any file)."""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import date
from typing import BinaryIO

from django.conf import settings

import nacha
from payments import numbers
from payments.models import PaymentMethod
from transactions.return_codes import CHANGE_CODES, REFUSED_CHANGE_CODES, RETURN_CODES, Corrected

NACHA_FILE_HEADER = "101"  # record type 1, priority code 01: banks trim trailing spaces, so not its length
CSV_FILE_HEADER = "file_header"
TRACE_NUMBER = re.compile(r"[0-9]{15}\Z", re.ASCII)
CODE = re.compile(r"[A-Z][0-9]{2}\Z", re.ASCII)
NAME = re.compile(r"[ -~]{1,22}\Z", re.ASCII)  # what the 22-character NACHA name field can carry

# The CSV's columns after its file header line (docs/returns.md, "Return and NOC CSV format").
CSV_COLUMNS = (
    "record_type",
    "original_trace_number",
    "code",
    "corrected_routing_number",
    "corrected_account_number",
    "corrected_account_type",
    "corrected_name",
)
CSV_REQUIRED = CSV_COLUMNS[:3]
CSV_CORRECTED = {
    "corrected_routing_number": Corrected.ROUTING.value,
    "corrected_account_number": Corrected.ACCOUNT.value,
    "corrected_account_type": Corrected.ACCOUNT_TYPE.value,
    "corrected_name": Corrected.NAME.value,
}
CSV_FILE_HEADER_FIELDS = ("file_header", "immediate destination", "immediate origin", "record count", "trace hash")
TRACE_HASH_DIGITS = 10


class ReturnFileError(ValueError):
    """The file cannot be imported as a whole (not for us, bad format, controls that do not add up); nothing
    was applied."""


@dataclass(frozen=True)
class FileItem:
    """One return or notice in file order, with why it is parked (None: it is applied if it matches an entry)."""

    item: nacha.ReturnedItem
    parked: str | None = None


@dataclass(frozen=True)
class ReturnFileContent:
    file_format: str
    count: int  # how many returns and notices it holds
    read: Callable[[], Iterator[FileItem]]  # each call reads the file again, one item at a time
    file_date: date | None = None  # a NACHA file header's creation date: entries traced after it are not candidates


class ReturnFileSource:
    """A return file's bytes, read from the start for each pass (the checks, then the import): a file on disk is
    never held in memory whole, however many items it has. `private_copy` (the first pass, which also refuses what
    is too large, not UTF-8 text, holds a NUL or is empty) gives the copy the import reads and its digest, which
    names it: what is applied is what the digest names, whoever writes to the original meanwhile."""

    READ_BYTES = 64 * 1024

    def __init__(self, handle: BinaryIO) -> None:
        self.handle = handle

    @classmethod
    def of(cls, content: bytes) -> ReturnFileSource:
        return cls(io.BytesIO(content))

    @contextmanager
    def private_copy(self, limit: int) -> Iterator[tuple[ReturnFileSource, str]]:
        """The file copied into an unnamed temporary file only this process can read (it may hold account numbers),
        and the copy's digest; the copy is gone when the block ends."""
        sha256 = hashlib.sha256()
        with tempfile.TemporaryFile() as copy:
            for chunk in self._checked_chunks(limit):
                sha256.update(chunk)
                copy.write(chunk)
            yield ReturnFileSource(copy), sha256.hexdigest()

    def _checked_chunks(self, limit: int) -> Iterator[bytes]:
        decoder = codecs.getincrementaldecoder("utf-8-sig")()
        size, has_text = 0, False
        try:
            for chunk in self._chunks():
                size += len(chunk)
                if size > limit:
                    raise ReturnFileError(f"the file is larger than {limit} bytes")
                text = decoder.decode(chunk)
                if "\0" in text:
                    raise ReturnFileError("the file holds a NUL character: not a return file")
                has_text = has_text or (bool(text) and not text.isspace())
                yield chunk
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise ReturnFileError("the file is not UTF-8 / ASCII text") from None
        if not has_text:
            raise ReturnFileError("the file is empty")

    def lines(self) -> Iterator[str]:
        """The text from its start, a line at a time (split at newlines only, as the file was written)."""
        self.handle.seek(0)
        text = io.TextIOWrapper(self.handle, encoding="utf-8-sig", newline="\n")
        try:
            for line in text:  # not `yield from`: closing this generator would close the wrapper, and the handle
                yield line
        finally:
            if not self.handle.closed:  # a pass a reader error left unfinished may end after the import did
                text.detach()  # the handle stays open for the next pass

    def _chunks(self) -> Iterator[bytes]:
        self.handle.seek(0)
        while chunk := self.handle.read(self.READ_BYTES):
            yield chunk


def first_line(lines: Callable[[], Iterator[str]]) -> str:
    with closing(lines()) as text:
        return next(text, "")


def read_return_file(source: ReturnFileSource) -> ReturnFileContent:
    """The file checked whole (a first pass that keeps nothing of the items), and how to read its items again:
    memory holds a line of the file at a time, never the file or a list of its items."""
    head = first_line(source.lines)[:1024]
    if head.startswith(NACHA_FILE_HEADER):
        try:
            return_file = nacha.read_returns(source.lines)
        except nacha.NachaFormatError as exc:
            raise ReturnFileError(str(exc)) from None
        check_routing(return_file.immediate_destination, return_file.immediate_origin)
        items, file_format, file_date = return_file.items, "nacha", return_file.created_on
    elif head.split(",", 1)[0].strip() == CSV_FILE_HEADER:
        items, file_format, file_date = csv_items_reader(source.lines), "csv", None
    else:
        raise ReturnFileError(
            "line 1 is neither a NACHA file header (record type 1, priority code 01) nor a return CSV's file header"
            f" ({CSV_FILE_HEADER},...; docs/returns.md)"
        )

    def read() -> Iterator[FileItem]:
        try:
            for item in items():
                _account_type_from_transaction_code(item)
                yield FileItem(item, parked_reason(item))
        except nacha.NachaFormatError as exc:
            raise ReturnFileError(str(exc)) from None

    count = sum(1 for _item in read())
    return ReturnFileContent(file_format, count, read, file_date)


def _account_type_from_transaction_code(item: nacha.ReturnedItem) -> None:
    """A NACHA NOC carries the corrected transaction code; we keep the account type it means."""
    if "transactionCode" in item.corrected:
        account_type = nacha.account_type_for_code(item.corrected.pop("transactionCode"))
        if account_type:
            item.corrected[Corrected.ACCOUNT_TYPE.value] = account_type


def check_routing(destination: str, origin: str) -> None:
    """Returns come back the way our files went, reversed: from the bank we send to (our immediate destination),
    addressed to us (our immediate origin). Any other file is not ours to apply."""
    expected = {
        "immediate destination": (destination, settings.ACH_IMMEDIATE_ORIGIN),
        "immediate origin": (origin, settings.ACH_IMMEDIATE_DESTINATION),
    }
    for name, (found, ours) in expected.items():
        if not numbers.is_ascii_digits(found) or len(found) != 9:
            raise ReturnFileError(f"file header {name} is not a 9-digit routing number: not a file for us")
        if found != ours:
            raise ReturnFileError(f"file header {name} is {found!r}, expected {ours!r}: not a file for us")


def csv_items_reader(lines: Callable[[], Iterator[str]]) -> Callable[[], Iterator[nacha.ReturnedItem]]:
    """The file header line (destination, origin, record count, trace hash), then a column header and one row
    per return or notice; the header's controls must match the rows, as a NACHA file's control records must.
    Each call of what it returns reads the rows again, checking the controls after the last."""
    first = first_line(lines).rstrip("\n").rstrip("\r")
    header = [value.strip() for value in next(csv.reader([first]), [])]
    if len(header) != len(CSV_FILE_HEADER_FIELDS):
        raise ReturnFileError(
            f"line 1: the CSV file header has {len(header)} fields, expected {len(CSV_FILE_HEADER_FIELDS)}: "
            + ", ".join(CSV_FILE_HEADER_FIELDS)
        )
    _, destination, origin, record_count, trace_hash = header
    check_routing(destination, origin)

    def read() -> Iterator[nacha.ReturnedItem]:
        body = lines()
        next(body, None)  # the file header line
        reader = csv.DictReader(body, strict=True)
        count = traces = 0
        try:
            for item in _csv_items(reader):
                count, traces = count + 1, traces + int(item.original_trace)
                yield item
        except csv.Error as exc:
            raise ReturnFileError(f"line {reader.line_num + 1}: malformed CSV ({exc})") from None
        _check_csv_controls(count, traces, record_count, trace_hash)

    return read


def trace_hash(traces: list[str]) -> str:
    """The CSV file header's control of its rows: the sum of their trace numbers, last 10 digits (as NACHA's
    entry hash sums routing numbers)."""
    return _trace_hash_of_sum(sum(int(trace) for trace in traces))


def _trace_hash_of_sum(total: int) -> str:
    return str(total).rjust(TRACE_HASH_DIGITS, "0")[-TRACE_HASH_DIGITS:]


def _check_csv_controls(count: int, traces: int, record_count: str, hash_value: str) -> None:
    if not numbers.is_ascii_digits(record_count) or int(record_count) != count:
        raise ReturnFileError(f"line 1: the CSV file header's record count differs from the {count} rows")
    if hash_value != _trace_hash_of_sum(traces):
        raise ReturnFileError(
            f"line 1: the CSV file header's trace hash is {hash_value!r}, where the rows' trace numbers give "
            f"{_trace_hash_of_sum(traces)!r} (their sum, last {TRACE_HASH_DIGITS} digits)"
        )


def _csv_items(reader: csv.DictReader) -> Iterator[nacha.ReturnedItem]:
    reader.fieldnames = [name.strip().lower() for name in (reader.fieldnames or [])]  # any case: Trace, CODE
    columns = reader.fieldnames
    missing = [name for name in CSV_REQUIRED if name not in columns]
    unknown = len([name for name in columns if name not in CSV_COLUMNS])
    if missing or unknown:
        raise ReturnFileError(
            f"line 2: CSV columns: missing {missing or 'none'}, {unknown} unknown; allowed: {', '.join(CSV_COLUMNS)}"
        )
    for row in reader:
        number = reader.line_num + 1  # the file header line comes first
        row = {key.strip(): (value or "").strip() for key, value in row.items() if isinstance(key, str)}
        kind = row["record_type"].lower()
        if kind not in ("return", "noc"):
            raise ReturnFileError(f"line {number}: record_type must be return or noc")
        if not TRACE_NUMBER.match(row["original_trace_number"]):
            raise ReturnFileError(f"line {number}: original_trace_number must be 15 digits")
        if not CODE.match(row["code"].upper()):
            raise ReturnFileError(f"line {number}: code must be a letter and two digits (R01, C01)")
        corrected = {CSV_CORRECTED[column]: row[column] for column in CSV_CORRECTED if row.get(column)}
        if kind == "noc" and Corrected.ACCOUNT_TYPE.value in corrected:
            corrected[Corrected.ACCOUNT_TYPE.value] = corrected[Corrected.ACCOUNT_TYPE.value].capitalize()
        yield nacha.ReturnedItem(kind, row["original_trace_number"], row["code"].upper(), corrected)


def parked_reason(item: nacha.ReturnedItem) -> str | None:
    """Why this item cannot be applied, whatever entry it names; None when it can."""
    if item.kind == "return":
        return None if item.code in RETURN_CODES else "unknown return code"
    if item.code in REFUSED_CHANGE_CODES:
        return f"refused notification of change ({REFUSED_CHANGE_CODES[item.code]}): nothing to correct"
    if item.code not in CHANGE_CODES:
        return "unknown change code"
    return correction_problem(item.code, item.corrected)


def correction_problem(code: str, corrected: dict[str, str]) -> str | None:
    """Why a notice's corrected data cannot be applied (never quoting it: it may be an account number)."""
    for name in CHANGE_CODES[code].corrects:
        if name.value not in corrected:
            return f"{code} carries no valid corrected {name.value}"
    routing = corrected.get(Corrected.ROUTING.value)
    if routing is not None and not numbers.is_routing_number(routing):
        return "corrected routingNumber is not a 9-digit routing number with a valid check digit"
    account = corrected.get(Corrected.ACCOUNT.value)
    if account is not None and not numbers.is_account_number(account):
        return "corrected accountNumber is not 4 to 17 digits"
    account_type = corrected.get(Corrected.ACCOUNT_TYPE.value)
    if account_type is not None and account_type not in PaymentMethod.AccountType.values:
        return "corrected accountType is not Checking or Savings"
    name = corrected.get(Corrected.NAME.value)
    if name is not None and not NAME.match(name):
        return "corrected name is not 1 to 22 printable ASCII characters"
    return None
