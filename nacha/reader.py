"""The reader of a return and notice-of-change file (what `import_returns` reads): the items it carries, every
batch and file control checked as it reads."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import date, datetime

from nacha.addenda98 import NOC_ADDENDA, parse_corrected_data
from nacha.addenda99 import RETURN_ADDENDA
from nacha.batch_control import BATCH_CONTROL, Totals
from nacha.batch_header import BATCH_HEADER
from nacha.entry_detail import ENTRY_DETAIL
from nacha.fields import (
    BLOCKING_FACTOR,
    PADDING_RECORD,
    RECORD_LENGTH,
    NachaFormatError,
    field_slice,
    is_ascii_digits,
    parse,
)
from nacha.file_control import FILE_CONTROL
from nacha.file_header import FILE_HEADER


@dataclass(frozen=True)
class ReturnedItem:
    """One return (addenda 99) or notice of change (addenda 98) as an RDFI reports it."""

    kind: str  # "return" or "noc"
    original_trace: str
    code: str
    corrected: dict[str, str] = field(default_factory=dict)
    # From the entry record of a NACHA file (a CSV row does not carry them): the original amount (0 in a NOC)
    # and whether the original entry was a debit.
    amount: int | None = None
    is_debit: bool | None = None
    # What else a NACHA file says of the original entry (CONTRACT 12 "Matching"): the Company Identification of
    # the return batch, the original receiving DFI (8 digits, from the addenda) and the account number as sent.
    company_identification: str | None = None
    original_rdfi: str | None = None
    account_number: str | None = None


@dataclass(frozen=True)
class ReturnFile:
    immediate_destination: str  # the 9-digit routing numbers of the file header, without the leading space
    immediate_origin: str
    created_on: date | None  # the file header's creation date (None when it is not a date)
    items: Callable[[], Iterator[ReturnedItem]]  # each call reads the file again


def _number(values: dict[str, str], name: str, line: int) -> int:
    return _digits(values[name], name, line)


def _digits(value: str, name: str, line: int) -> int:
    if not is_ascii_digits(value):
        raise NachaFormatError(f"line {line}: {name} {value!r} is not a number")
    return int(value)


# The fields a return file's reader takes of each entry and addenda record (two records an item, read twice: the
# check pass and the import): sliced out directly rather than parsed whole.
_ENTRY_CODE, _ENTRY_DFI, _ENTRY_ACCOUNT, _ENTRY_AMOUNT = (
    field_slice(ENTRY_DETAIL, name) for name in ("transaction_code", "receiving_dfi", "account_number", "amount")
)


_RETURN_TRACE, _RETURN_CODE = (field_slice(RETURN_ADDENDA, name) for name in ("original_trace", "reason_code"))


# The original receiving DFI sits at the same place in every return, dishonored, contested and NOC addenda.
_ORIGINAL_RDFI = field_slice(RETURN_ADDENDA, "original_receiving_dfi")


_NOC_TRACE, _NOC_CODE, _NOC_DATA = (
    field_slice(NOC_ADDENDA, name) for name in ("original_trace", "change_code", "corrected_data")
)


class _Totals(Totals):
    """What a batch or file control record must add up to, checked against what it says."""

    def check(self, values: dict[str, str], line: int, what: str) -> None:
        for name, value in self.control_values().items():
            found, value = _number(values, name, line), int(value)
            if found != value:
                raise NachaFormatError(f"line {line}: {what} {name} is {found}, the entries add up to {value}")


def read_returns(lines: Callable[[], Iterator[str]]) -> ReturnFile:
    """The file header's routing numbers, and an iterator over its returns and NOCs in file order that checks the
    structure and every batch and file control record (counts, entry hash, totals) as it reads, raising
    NachaFormatError naming the line. `lines` reads the file from its start, a line at a time, each call: nothing
    is kept of a record once read, and each pass reads the file again."""
    with closing(lines()) as text:  # the header only: `items` reads the rest
        first = next(_return_file_records(text), None)
    if first is None or not first[1].startswith("1"):
        raise NachaFormatError("line 1: not a NACHA file header (record type 1)")
    header = parse(FILE_HEADER, first[1])
    return ReturnFile(
        immediate_destination=header["immediate_destination"].strip(),
        immediate_origin=header["immediate_origin"].strip(),
        created_on=_file_date(header["creation_date"]),
        items=lambda: _returned_items(lines()),
    )


def _file_date(value: str) -> date | None:
    try:
        return datetime.strptime(value, "%y%m%d").date()  # noqa: DTZ007 - a calendar date, no time of day
    except ValueError:
        return None


def _returned_items(lines: Iterable[str]) -> Iterator[ReturnedItem]:
    reader = _ReturnFileReader()
    records = _return_file_records(lines)
    next(records)  # the file header
    for number, line in records:
        item = reader.read(line, number)
        if item is not None:
            yield item
    if reader.control_line is None:
        raise NachaFormatError("the file has no file control record (record type 9)")


def _return_file_records(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, record) of each record, trailing blank lines dropped, after checking no record is longer than
    the NACHA length. Shorter records are padded with spaces: banks trim them. A line ends at a newline; carriage
    returns before it are dropped."""
    blank = 0  # blank lines held back until a record follows them
    for number, raw in enumerate(lines, start=1):
        line = (raw[:-1] if raw.endswith("\n") else raw).rstrip("\r")
        if line == "":
            blank += 1
            continue
        for held in range(number - blank, number):
            yield held, " " * RECORD_LENGTH
        blank = 0
        if len(line) > RECORD_LENGTH:
            raise NachaFormatError(f"line {number}: record is {len(line)} characters, expected {RECORD_LENGTH}")
        yield number, line.ljust(RECORD_LENGTH)


class _ReturnFileReader:
    """One pass over the records after the file header: the open batch, its last entry and the running totals,
    each control record checked as it comes."""

    def __init__(self) -> None:
        self.file_totals = _Totals()
        self.batch_totals: _Totals | None = None
        self.batches = 0
        self.batch_header: dict[str, str] = {}
        # The open entry's amount, whether it is a debit, and its account number.
        self.entry: tuple[int, bool, str] | None = None
        self.control_line: int | None = None

    def read(self, line: str, number: int) -> ReturnedItem | None:
        """Checks the record; the return or notice it carries, if any."""
        record_type = line[0]
        if self.control_line is not None:
            if line != PADDING_RECORD:
                raise NachaFormatError(f"line {number}: only padding may follow the file control record")
            return None
        if record_type == "5":
            self._batch_header(line, number)
        elif record_type in "678" and self.batch_totals is None:
            raise NachaFormatError(f"line {number}: record type {record_type} outside a batch")
        elif record_type == "6":
            self._entry_detail(line, number)
        elif record_type == "7":
            return self._addenda(line, number)
        elif record_type == "8":
            self._batch_control(line, number)
        elif record_type == "9" and line != PADDING_RECORD:
            self._file_control(line, number)
        else:
            raise NachaFormatError(f"line {number}: unexpected record type {record_type!r}")
        return None

    def _batch_header(self, line: str, number: int) -> None:
        if self.batch_totals is not None:
            raise NachaFormatError(f"line {number}: batch header inside an open batch")
        self.batch_header, self.batch_totals, self.entry = parse(BATCH_HEADER, line), _Totals(), None

    def _entry_detail(self, line: str, number: int) -> None:
        amount = _digits(line[_ENTRY_AMOUNT], "amount", number)
        is_debit = line[_ENTRY_CODE][1:] in "6789"
        self.entry = (amount, is_debit, line[_ENTRY_ACCOUNT].strip())
        receiving_dfi = _digits(line[_ENTRY_DFI], "receiving_dfi", number)
        self.batch_totals.entry_add(amount=amount, is_debit=is_debit, receiving_dfi=receiving_dfi)

    def _addenda(self, line: str, number: int) -> ReturnedItem | None:
        if self.entry is None:
            raise NachaFormatError(f"line {number}: addenda without an entry")
        self.batch_totals.count += 1
        amount, is_debit, account = self.entry
        original = {
            "amount": amount,
            "is_debit": is_debit,
            "account_number": account,
            "company_identification": self.batch_header["company_identification"].strip(),
            "original_rdfi": line[_ORIGINAL_RDFI].strip(),
        }
        return _returned_item(line, original, number)

    def _batch_control(self, line: str, number: int) -> None:
        control = parse(BATCH_CONTROL, line)
        self.batch_totals.check(control, number, "batch control")
        for name in ("service_class_code", "batch_number"):
            if control[name] != self.batch_header[name]:
                raise NachaFormatError(f"line {number}: batch control {name} differs from its batch header")
        self.file_totals.add(self.batch_totals)
        self.batches, self.batch_totals, self.entry = self.batches + 1, None, None

    def _file_control(self, line: str, number: int) -> None:
        if self.batch_totals is not None:
            raise NachaFormatError(f"line {number}: file control inside an open batch")
        control = parse(FILE_CONTROL, line)
        self.file_totals.check(control, number, "file control")
        if _number(control, "batch_count", number) != self.batches:
            raise NachaFormatError(f"line {number}: file control batch_count differs from the {self.batches} batches")
        blocks = -(-number // BLOCKING_FACTOR)
        if _number(control, "block_count", number) != blocks:
            raise NachaFormatError(f"line {number}: file control block_count differs from {blocks} blocks")
        self.control_line = number


def _returned_item(line: str, original: dict, number: int) -> ReturnedItem | None:
    """The item an addenda record carries; `original` is what its entry and batch header say of the original."""
    addenda_type = line[1:3]
    if addenda_type in ("98", "99") and not is_ascii_digits(line[6:21]):
        raise NachaFormatError(f"line {number}: the original entry trace number is not 15 digits")
    if addenda_type == "99":
        return ReturnedItem("return", line[_RETURN_TRACE], line[_RETURN_CODE].strip(), **original)
    if addenda_type == "98":
        code = line[_NOC_CODE].strip()
        return ReturnedItem("noc", line[_NOC_TRACE], code, parse_corrected_data(code, line[_NOC_DATA]), **original)
    return None
