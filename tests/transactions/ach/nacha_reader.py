"""An independent NACHA reader for the tests: it shares no code with the nacha package, and
checks every structural rule of an origination file while it reads it."""

from __future__ import annotations

from dataclasses import dataclass, field

DEBIT_CODES = {"27", "37", "26", "36", "28", "38"}
CREDIT_CODES = {"22", "32", "21", "31", "23", "33"}


@dataclass
class ReadEntry:
    transaction_code: str
    routing: str
    account: str
    amount: int
    individual_id: str
    name: str
    trace: str
    addenda: list[str] = field(default_factory=list)
    payment_type: str = ""  # positions 77-78: Payment Type Code (WEB, TEL) or discretionary data


@dataclass
class ReadBatch:
    service_class: str
    company_name: str
    company_id: str
    sec: str
    description: str
    effective_date: str
    odfi: str
    number: int
    entries: list[ReadEntry] = field(default_factory=list)


@dataclass
class ReadFile:
    destination: str
    origin: str
    modifier: str
    batches: list[ReadBatch]
    record_count: int


class Invalid(AssertionError):
    pass


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise Invalid(message)


def read(text: str) -> ReadFile:
    _check(text.endswith("\n"), "file must end with a newline")
    lines = text[:-1].split("\n")
    for number, line in enumerate(lines, 1):
        _check(len(line) == 94, f"line {number} has {len(line)} characters")
    _check(len(lines) % 10 == 0, f"{len(lines)} records are not a whole number of 10-record blocks")
    header = lines[0]
    _check(header[0] == "1", "first record must be the file header")
    _check(header[34:37] == "094" and header[37:39] == "10" and header[39] == "1", "record size/blocking/format")
    body = list(lines[1:])
    while body and body[-1] == "9" * 94:
        body.pop()
    control = body.pop()
    _check(control[0] == "9", "last non-padding record must be the file control")
    _check(all(line == "9" * 94 for line in lines[len(body) + 2 :]), "only 9-padding after the file control")
    padding = len(lines) - len(body) - 2
    _check(padding < 10, "no whole block of padding")

    batches: list[ReadBatch] = []
    current: ReadBatch | None = None
    for line in body:
        kind = line[0]
        if kind == "5":
            _check(current is None, "batch header inside a batch")
            current = ReadBatch(
                service_class=line[1:4],
                company_name=line[4:20].rstrip(),
                company_id=line[40:50].rstrip(),
                sec=line[50:53],
                description=line[53:63].rstrip(),
                effective_date=line[69:75],
                odfi=line[79:87],
                number=int(line[87:94]),
            )
        elif kind == "6":
            _check(current is not None, "entry outside a batch")
            current.entries.append(
                ReadEntry(
                    transaction_code=line[1:3],
                    routing=line[3:12],
                    account=line[12:29].rstrip(),
                    amount=int(line[29:39]),
                    individual_id=line[39:54].rstrip(),
                    name=line[54:76].rstrip(),
                    trace=line[79:94],
                    payment_type=line[76:78].rstrip(),
                )
            )
            _check(line[78] in "01", "addenda indicator")
        elif kind == "7":
            _check(current is not None and current.entries, "addenda without an entry")
            current.entries[-1].addenda.append(line)
        elif kind == "8":
            _check(current is not None, "batch control without a batch")
            _verify_batch(current, line)
            batches.append(current)
            current = None
        else:
            raise Invalid(f"unexpected record type {kind!r}")
    _check(current is None, "unterminated batch")
    _verify_file(batches, control, total_records=len(lines))
    return ReadFile(
        destination=header[3:13], origin=header[13:23], modifier=header[33], batches=batches, record_count=len(lines)
    )


def _totals(entries: list[ReadEntry]) -> tuple[int, int, int, int]:
    count = sum(1 + len(entry.addenda) for entry in entries)
    routing_hash = sum(int(entry.routing[:8]) for entry in entries)
    debits = sum(entry.amount for entry in entries if entry.transaction_code in DEBIT_CODES)
    credits = sum(entry.amount for entry in entries if entry.transaction_code in CREDIT_CODES)
    return count, routing_hash, debits, credits


def _verify_batch(batch: ReadBatch, control: str) -> None:
    count, routing_hash, debits, credits = _totals(batch.entries)
    _check(control[1:4] == batch.service_class, "batch control service class differs from the header")
    _check(int(control[4:10]) == count, f"batch entry count {control[4:10]} != {count}")
    _check(int(control[10:20]) == routing_hash % 10**10, "batch entry hash")
    _check(int(control[20:32]) == debits, f"batch debit total {control[20:32]} != {debits}")
    _check(int(control[32:44]) == credits, f"batch credit total {control[32:44]} != {credits}")
    _check(control[44:54].rstrip() == batch.company_id, "batch control company id")
    _check(control[79:87] == batch.odfi and int(control[87:94]) == batch.number, "batch control ODFI / number")
    has_debits = any(entry.transaction_code in DEBIT_CODES for entry in batch.entries)
    has_credits = any(entry.transaction_code in CREDIT_CODES for entry in batch.entries)
    expected = "200" if has_debits and has_credits else ("225" if has_debits else "220")
    _check(batch.service_class == expected, f"service class {batch.service_class}, entries want {expected}")
    for entry in batch.entries:
        _check(entry.trace[:8] == batch.odfi, "trace number starts with the ODFI routing")


def _verify_file(batches: list[ReadBatch], control: str, *, total_records: int) -> None:
    entries = [entry for batch in batches for entry in batch.entries]
    count, routing_hash, debits, credits = _totals(entries)
    _check(int(control[1:7]) == len(batches), "file batch count")
    _check(int(control[7:13]) == total_records // 10, "file block count")
    _check(int(control[13:21]) == count, "file entry/addenda count")
    _check(int(control[21:31]) == routing_hash % 10**10, "file entry hash")
    _check(int(control[31:43]) == debits, "file debit total")
    _check(int(control[43:55]) == credits, "file credit total")
    _check(control[55:] == " " * 39, "file control reserved")
    numbers = [batch.number for batch in batches]
    _check(numbers == sorted(set(numbers)), "batch numbers ascend")
    traces = [entry.trace for entry in entries]
    _check(len(traces) == len(set(traces)), "trace numbers are unique in the file")
