"""NACHA fixed-width files: the origination writer, a return / notice-of-change writer (what an RDFI
sends back; used by tests and sandbox tooling) and the reader `import_returns` uses.

Every record is 94 characters; each record type is one layout table of (field, width, kind)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from datetime import date, datetime

from payments import numbers

RECORD_LENGTH = 94
BLOCKING_FACTOR = 10
PADDING_RECORD = "9" * RECORD_LENGTH

# Numeric: ASCII digits, zero-filled, right-justified. Alphanumeric: folded to upper-case ASCII, space-filled,
# left-justified (names, descriptions). Exact: printable ASCII written as given, space-filled: an identifier that
# folding or truncating would turn into another one (an account number, a company or routing identification).
N, A, X = "N", "A", "X"

FILE_HEADER = (
    ("record_type", 1, N),
    ("priority_code", 2, N),
    ("immediate_destination", 10, X),
    ("immediate_origin", 10, X),
    ("creation_date", 6, N),
    ("creation_time", 4, N),
    ("file_id_modifier", 1, A),
    ("record_size", 3, N),
    ("blocking_factor", 2, N),
    ("format_code", 1, N),
    ("destination_name", 23, A),
    ("origin_name", 23, A),
    ("reference_code", 8, A),
)
BATCH_HEADER = (
    ("record_type", 1, N),
    ("service_class_code", 3, N),
    ("company_name", 16, A),
    ("company_discretionary_data", 20, A),
    ("company_identification", 10, X),
    ("sec_code", 3, A),
    ("entry_description", 10, A),
    ("descriptive_date", 6, A),
    ("effective_entry_date", 6, N),
    ("settlement_date", 3, A),
    ("originator_status_code", 1, A),
    ("originating_dfi", 8, N),
    ("batch_number", 7, N),
)
ENTRY_DETAIL = (
    ("record_type", 1, N),
    ("transaction_code", 2, N),
    ("receiving_dfi", 8, N),
    ("check_digit", 1, N),
    ("account_number", 17, X),
    ("amount", 10, N),
    ("individual_id", 15, A),
    ("individual_name", 22, A),
    ("discretionary_data", 2, A),
    ("addenda_indicator", 1, N),
    ("trace_number", 15, N),
)
RETURN_ADDENDA = (
    ("record_type", 1, N),
    ("addenda_type", 2, N),
    ("reason_code", 3, A),
    ("original_trace", 15, N),
    ("date_of_death", 6, A),
    ("original_receiving_dfi", 8, N),
    ("information", 44, A),
    ("trace_number", 15, N),
)
NOC_ADDENDA = (
    ("record_type", 1, N),
    ("addenda_type", 2, N),
    ("change_code", 3, A),
    ("original_trace", 15, N),
    ("reserved", 6, A),
    ("original_receiving_dfi", 8, N),
    ("corrected_data", 29, A),
    ("reserved_2", 15, A),
    ("trace_number", 15, N),
)
BATCH_CONTROL = (
    ("record_type", 1, N),
    ("service_class_code", 3, N),
    ("entry_addenda_count", 6, N),
    ("entry_hash", 10, N),
    ("debit_total", 12, N),
    ("credit_total", 12, N),
    ("company_identification", 10, X),
    ("message_authentication_code", 19, A),
    ("reserved", 6, A),
    ("originating_dfi", 8, N),
    ("batch_number", 7, N),
)
FILE_CONTROL = (
    ("record_type", 1, N),
    ("batch_count", 6, N),
    ("block_count", 6, N),
    ("entry_addenda_count", 8, N),
    ("entry_hash", 10, N),
    ("debit_total", 12, N),
    ("credit_total", 12, N),
    ("reserved", 39, A),
)

# (transaction type, account type) -> transaction code; a return or NOC of an entry uses the code one below.
TRANSACTION_CODES: dict[tuple[str, str], str] = {
    ("Debit", "Checking"): "27",
    ("Debit", "Savings"): "37",
    ("Credit", "Checking"): "22",
    ("Credit", "Savings"): "32",
}
# A prenote (zero-dollar pre-notification) uses the code one above its live entry's: 28, 38, 23, 33.
PRENOTE_TRANSACTION_CODES: dict[tuple[str, str], str] = {
    key: code[0] + str(int(code[1]) + 1) for key, code in TRANSACTION_CODES.items()
}
ACCOUNT_TYPE_BY_CODE_PREFIX = {"2": "Checking", "3": "Savings"}

SERVICE_CLASS_MIXED, SERVICE_CLASS_CREDITS, SERVICE_CLASS_DEBITS = "200", "220", "225"

# Where each notice-of-change code puts the corrected values inside the 29-character corrected-data field.
CORRECTED_DATA_LAYOUT: dict[str, tuple[tuple[str, int, int], ...]] = {
    "C01": (("accountNumber", 0, 17),),
    "C02": (("routingNumber", 0, 9),),
    "C03": (("routingNumber", 0, 9), ("accountNumber", 12, 29)),
    "C04": (("name", 0, 22),),
    "C05": (("transactionCode", 0, 2),),
    "C06": (("accountNumber", 0, 17), ("transactionCode", 20, 22)),
    "C07": (("routingNumber", 0, 9), ("accountNumber", 9, 26), ("transactionCode", 26, 28)),
}


class NachaFormatError(ValueError):
    """A file that is not a well-formed NACHA file (the message names the line)."""


class NachaFieldError(ValueError):
    """A value the writer cannot put into its field exactly; the message names the field, never the value."""


def _is_printable_ascii(text: str) -> bool:
    """Every character in 32-126 (isprintable is False for the control characters and DEL)."""
    return text.isascii() and text.isprintable()


def ascii_upper(value: str) -> str:
    """NACHA alphanumeric fields: upper-case ASCII only (accents folded, other characters dropped)."""
    if _is_printable_ascii(value):  # most names and descriptions: nothing to fold or drop
        return value.upper()
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return "".join(ch for ch in folded.upper() if 32 <= ord(ch) < 127)


def render(layout: Sequence[tuple[str, int, str]], values: dict[str, object]) -> str:
    parts = []
    for name, width, kind in layout:
        value = values.get(name, "")
        text = str(value)
        if kind == N:
            if text != "" and not numbers.is_ascii_digits(text):
                raise NachaFieldError(f"{name} must be ASCII digits")
            if len(text) > width:
                raise NachaFieldError(f"{name} does not fit in {width} digits")
            parts.append(text.rjust(width, "0"))
        elif kind == X:
            if not _is_printable_ascii(text):
                raise NachaFieldError(f"{name} must be printable ASCII")
            if len(text) > width:
                raise NachaFieldError(f"{name} does not fit in {width} characters")
            parts.append(text.ljust(width))
        else:
            parts.append(ascii_upper(text)[:width].ljust(width))
    record = "".join(parts)
    assert len(record) == RECORD_LENGTH, (layout[0], len(record))  # noqa: S101 - layouts are static
    return record


def _slices(layout: Sequence[tuple[str, int, str]]) -> tuple[tuple[str, int, int], ...]:
    """(name, start, end) of each field of `layout`."""
    slices, position = [], 0
    for name, width, _kind in layout:
        slices.append((name, position, position + width))
        position += width
    return tuple(slices)


def parse(layout: Sequence[tuple[str, int, str]], record: str) -> dict[str, str]:
    return {name: record[start:end] for name, start, end in _slices(layout)}


def entry_hash(total: int) -> str:
    """The Entry Hash of a batch or file control: the sum of its entries' 8-digit routing prefixes, its last 10
    digits."""
    return str(total)[-10:]


def service_class(*, has_debits: bool, has_credits: bool) -> str:
    if has_debits and has_credits:
        return SERVICE_CLASS_MIXED
    return SERVICE_CLASS_DEBITS if has_debits else SERVICE_CLASS_CREDITS


@dataclass(frozen=True)
class Entry:
    transaction_code: str
    routing_number: str  # 9 digits: 8-digit DFI identification + check digit
    account_number: str
    amount: int
    individual_id: str
    individual_name: str
    trace_number: str
    addenda: tuple[str, ...] = ()  # rendered addenda records (returns and NOCs)
    discretionary_data: str = ""  # positions 77-78: the Payment Type Code of a WEB or TEL entry

    @property
    def is_debit(self) -> bool:
        return self.transaction_code[1] in "6789"


@dataclass(frozen=True)
class BatchSpec:
    company_name: str
    company_identification: str
    sec_code: str
    entry_description: str
    effective_date: date
    batch_number: int
    entries: Sequence[Entry] = field(default_factory=tuple)
    # Or the entries already rendered (`entry_records`), with their addenda: a writer that rendered them earlier.
    records: Sequence[str] = field(default_factory=tuple)


@dataclass(frozen=True)
class FileSpec:
    immediate_destination: str
    immediate_origin: str
    destination_name: str
    origin_name: str
    originating_dfi: str
    created_at: datetime
    file_id_modifier: str
    batches: Sequence[BatchSpec]
    reference_code: str = ""


def _entry_record(entry: Entry) -> str:
    return render(
        ENTRY_DETAIL,
        {
            "record_type": "6",
            "transaction_code": entry.transaction_code,
            "receiving_dfi": entry.routing_number[:8],
            "check_digit": entry.routing_number[8],
            "account_number": entry.account_number,
            "amount": entry.amount,
            "individual_id": entry.individual_id,
            "individual_name": entry.individual_name,
            "discretionary_data": entry.discretionary_data,
            "addenda_indicator": "1" if entry.addenda else "0",
            "trace_number": entry.trace_number,
        },
    )


def entry_records(entries: Iterable[Entry]) -> Iterator[str]:
    """Each entry's detail record, then its addenda records."""
    for entry in entries:
        yield _entry_record(entry)
        yield from entry.addenda


def _batch_records(spec: BatchSpec, originating_dfi: str) -> tuple[list[str], dict[str, int]]:
    """The batch's header, entries and control. Its counts and totals are read back from the entry records, so a
    batch rendered earlier (`spec.records`) is totalled exactly as one rendered here."""
    entries = list(spec.records) if spec.records else list(entry_records(spec.entries))
    debits = credits = hash_total = 0
    has_debits = has_credits = False
    for record in entries:
        if record[0] != "6":  # an addenda record
            continue
        amount = int(record[29:39])
        hash_total += int(record[3:11])
        if record[2] in "6789":  # the transaction code's second digit: a debit (or a debit prenote)
            debits += amount
            has_debits = True
        else:
            credits += amount
            has_credits = True
    service_class_code = service_class(has_debits=has_debits, has_credits=has_credits)
    header = render(
        BATCH_HEADER,
        {
            "record_type": "5",
            "service_class_code": service_class_code,
            "company_name": spec.company_name,
            "company_identification": spec.company_identification,
            "sec_code": spec.sec_code,
            "entry_description": spec.entry_description,
            "descriptive_date": spec.effective_date.strftime("%b %d"),
            "effective_entry_date": spec.effective_date.strftime("%y%m%d"),
            "originator_status_code": "1",
            "originating_dfi": originating_dfi,
            "batch_number": spec.batch_number,
        },
    )
    hash_value = entry_hash(hash_total)
    control = render(
        BATCH_CONTROL,
        {
            "record_type": "8",
            "service_class_code": service_class_code,
            "entry_addenda_count": len(entries),
            "entry_hash": hash_value,
            "debit_total": debits,
            "credit_total": credits,
            "company_identification": spec.company_identification,
            "originating_dfi": originating_dfi,
            "batch_number": spec.batch_number,
        },
    )
    totals = {"count": len(entries), "hash": int(hash_value), "debits": debits, "credits": credits}
    return [header, *entries, control], totals


def _file_header(spec: FileSpec) -> str:
    return render(
        FILE_HEADER,
        {
            "record_type": "1",
            "priority_code": "01",
            "immediate_destination": " " + spec.immediate_destination,
            "immediate_origin": " " + spec.immediate_origin,
            "creation_date": spec.created_at.strftime("%y%m%d"),
            "creation_time": spec.created_at.strftime("%H%M"),
            "file_id_modifier": spec.file_id_modifier,
            "record_size": "094",
            "blocking_factor": BLOCKING_FACTOR,
            "format_code": "1",
            "destination_name": spec.destination_name,
            "origin_name": spec.origin_name,
            "reference_code": spec.reference_code,
        },
    )


def file_record_groups(spec: FileSpec) -> Iterator[list[str]]:
    """The whole file, blocked, a batch's records at a time (header, each batch, control with its padding):
    `spec.batches` may be a generator, so a writer holds one batch in memory, never the file."""
    yield [_file_header(spec)]
    written = 1
    batch_count = count = hash_total = debits = credits = 0
    for batch in spec.batches:
        batch_lines, totals = _batch_records(batch, spec.originating_dfi)
        yield batch_lines
        written += len(batch_lines)
        batch_count += 1
        count += totals["count"]
        hash_total += totals["hash"]
        debits += totals["debits"]
        credits += totals["credits"]
    total_records = written + 1
    block_count = -(-total_records // BLOCKING_FACTOR)
    control = render(
        FILE_CONTROL,
        {
            "record_type": "9",
            "batch_count": batch_count,
            "block_count": block_count,
            "entry_addenda_count": count,
            "entry_hash": entry_hash(hash_total),
            "debit_total": debits,
            "credit_total": credits,
        },
    )
    yield [control] + [PADDING_RECORD] * ((-total_records) % BLOCKING_FACTOR)


def file_records(spec: FileSpec) -> list[str]:
    """The whole file, blocked: header, batches, control, padding."""
    return [record for group in file_record_groups(spec) for record in group]


def file_chunks(spec: FileSpec) -> Iterator[str]:
    """The file's text a batch at a time (each record ends with a newline), for a streamed write."""
    for group in file_record_groups(spec):
        yield "".join(record + "\n" for record in group)


def file_text(spec: FileSpec) -> str:
    return "".join(file_chunks(spec))


# --- returns and notices of change -------------------------------------------------------------------------


def corrected_data(change_code: str, values: dict[str, str]) -> str:
    """The 29-character corrected-data field of a NOC addenda for the given corrected values."""
    buffer = [" "] * 29
    for name, start, end in CORRECTED_DATA_LAYOUT.get(change_code, ()):
        text = ascii_upper(values.get(name, ""))[: end - start].ljust(end - start)
        buffer[start:end] = list(text)
    return "".join(buffer)


def parse_corrected_data(change_code: str, data: str) -> dict[str, str]:
    values = {}
    for name, start, end in CORRECTED_DATA_LAYOUT.get(change_code, ()):
        value = data[start:end].strip()
        if value:
            values[name] = value
    return values


def return_addenda(*, reason_code: str, original_trace: str, original_routing: str, trace_number: str) -> str:
    return render(
        RETURN_ADDENDA,
        {
            "record_type": "7",
            "addenda_type": "99",
            "reason_code": reason_code,
            "original_trace": original_trace,
            "original_receiving_dfi": original_routing[:8],
            "trace_number": trace_number,
        },
    )


def noc_addenda(
    *, change_code: str, original_trace: str, original_routing: str, corrected: dict[str, str], trace_number: str
) -> str:
    return render(
        NOC_ADDENDA,
        {
            "record_type": "7",
            "addenda_type": "98",
            "change_code": change_code,
            "original_trace": original_trace,
            "original_receiving_dfi": original_routing[:8],
            "corrected_data": corrected_data(change_code, corrected),
            "trace_number": trace_number,
        },
    )


def return_transaction_code(original_code: str) -> str:
    """27 -> 26, 22 -> 21, 37 -> 36, 32 -> 31: the automated return / NOC code for the original's account."""
    return original_code[0] + str(int(original_code[1]) - 1)


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
    if not numbers.is_ascii_digits(value):
        raise NachaFormatError(f"line {line}: {name} {value!r} is not a number")
    return int(value)


def _field_slice(layout: Sequence[tuple[str, int, str]], name: str) -> slice:
    return next(slice(start, end) for field_name, start, end in _slices(layout) if field_name == name)


# The fields a return file's reader takes of each entry and addenda record (two records an item, read twice: the
# check pass and the import): sliced out directly rather than parsed whole.
_ENTRY_CODE, _ENTRY_DFI, _ENTRY_ACCOUNT, _ENTRY_AMOUNT = (
    _field_slice(ENTRY_DETAIL, name) for name in ("transaction_code", "receiving_dfi", "account_number", "amount")
)
_RETURN_TRACE, _RETURN_CODE = (_field_slice(RETURN_ADDENDA, name) for name in ("original_trace", "reason_code"))
# The original receiving DFI sits at the same place in every return, dishonored, contested and NOC addenda.
_ORIGINAL_RDFI = _field_slice(RETURN_ADDENDA, "original_receiving_dfi")
_NOC_TRACE, _NOC_CODE, _NOC_DATA = (
    _field_slice(NOC_ADDENDA, name) for name in ("original_trace", "change_code", "corrected_data")
)


@dataclass
class _Totals:
    """What a batch or file control record must add up to."""

    count: int = 0
    hash: int = 0
    debits: int = 0
    credits: int = 0

    def add(self, other: _Totals) -> None:
        self.count += other.count
        self.hash += other.hash
        self.debits += other.debits
        self.credits += other.credits

    def check(self, values: dict[str, str], line: int, what: str) -> None:
        expected = {
            "entry_addenda_count": self.count,
            "entry_hash": self.hash % 10**10,
            "debit_total": self.debits,
            "credit_total": self.credits,
        }
        for name, value in expected.items():
            found = _number(values, name, line)
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
        self.batch_totals.count += 1
        self.batch_totals.hash += _digits(line[_ENTRY_DFI], "receiving_dfi", number)
        if is_debit:
            self.batch_totals.debits += amount
        else:
            self.batch_totals.credits += amount

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
    if addenda_type in ("98", "99") and not numbers.is_ascii_digits(line[6:21]):
        raise NachaFormatError(f"line {number}: the original entry trace number is not 15 digits")
    if addenda_type == "99":
        return ReturnedItem("return", line[_RETURN_TRACE], line[_RETURN_CODE].strip(), **original)
    if addenda_type == "98":
        code = line[_NOC_CODE].strip()
        return ReturnedItem("noc", line[_NOC_TRACE], code, parse_corrected_data(code, line[_NOC_DATA]), **original)
    return None


@dataclass(frozen=True)
class ReturnSpec:
    """What an RDFI needs to send back one return or notice of change for an entry it received."""

    kind: str  # "return" or "noc"
    code: str
    original_trace: str
    original_transaction_code: str
    routing_number: str
    account_number: str
    amount: int
    individual_name: str
    company_name: str
    company_identification: str
    sec_code: str
    corrected: dict[str, str] = field(default_factory=dict)


def return_file_text(*, items: Sequence[ReturnSpec], rdfi_routing: str, odfi_routing: str, created_at: datetime) -> str:
    """A return / NOC file as an RDFI would send it to the ODFI: one batch per company and SEC (COR for NOCs)."""
    batches: dict[tuple[str, str, str], list[Entry]] = {}
    for sequence, item in enumerate(items, start=1):
        trace = rdfi_routing[:8] + str(sequence).rjust(7, "0")
        if item.kind == "return":
            addenda = return_addenda(
                reason_code=item.code,
                original_trace=item.original_trace,
                original_routing=item.routing_number,
                trace_number=trace,
            )
            sec, amount = item.sec_code, item.amount
        else:
            addenda = noc_addenda(
                change_code=item.code,
                original_trace=item.original_trace,
                original_routing=item.routing_number,
                corrected=item.corrected,
                trace_number=trace,
            )
            sec, amount = "COR", 0
        entry = Entry(
            transaction_code=return_transaction_code(item.original_transaction_code),
            routing_number=item.routing_number,
            account_number=item.account_number,
            amount=amount,
            individual_id="",
            individual_name=item.individual_name,
            trace_number=trace,
            addenda=(addenda,),
        )
        batches.setdefault((item.company_name, item.company_identification, sec), []).append(entry)
    specs = [
        BatchSpec(
            company_name=name,
            company_identification=company_id,
            sec_code=sec,
            entry_description="RETURN",
            effective_date=created_at.date(),
            batch_number=number,
            entries=entries,
        )
        for number, ((name, company_id, sec), entries) in enumerate(batches.items(), start=1)
    ]
    return file_text(
        FileSpec(
            immediate_destination=odfi_routing,
            immediate_origin=rdfi_routing,
            destination_name="ODFI",
            origin_name="RDFI",
            originating_dfi=rdfi_routing[:8],
            created_at=created_at,
            file_id_modifier="A",
            batches=specs,
        )
    )


def account_type_for_code(transaction_code: str) -> str | None:
    return ACCOUNT_TYPE_BY_CODE_PREFIX.get(transaction_code[:1])
