"""The origination writer: a file of batches of entries, blocked, with its controls."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from nacha.batch_control import BATCH_CONTROL, entry_hash
from nacha.batch_header import BATCH_HEADER, service_class
from nacha.entry_detail import Entry, entry_records
from nacha.fields import BLOCKING_FACTOR, PADDING_RECORD, render
from nacha.file_control import FILE_CONTROL
from nacha.file_header import FILE_HEADER


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
