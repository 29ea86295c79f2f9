"""The origination writer: a file of batches of entries, blocked, with its controls."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from nacha.batch_control import BATCH_CONTROL, Totals
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
    # Or the entries already rendered (`entry_records`), with their addenda: a writer that rendered them earlier,
    # and kept what those entries add up to (`entry_totals`).
    records: Sequence[str] = field(default_factory=tuple)
    totals: Totals | None = None


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


def entry_totals(entries: Iterable[Entry]) -> Totals:
    """What the entries add up to in a batch control, from their integers."""
    totals = Totals()
    for entry in entries:
        totals.entry_add(
            amount=entry.amount,
            is_debit=entry.is_debit,
            receiving_dfi=int(entry.routing_number[:8]),
            addenda=len(entry.addenda),
        )
    return totals


def _batch_records(spec: BatchSpec, originating_dfi: str) -> tuple[list[str], Totals]:
    """The batch's header, entries and control. Its counts and totals come from the entries' integers: a batch
    rendered earlier (`spec.records`) carries the totals of the entries that made them (`spec.totals`)."""
    if spec.records:
        if spec.totals is None:
            raise ValueError(f"batch {spec.batch_number}: records rendered earlier come with their totals")
        entries, totals = list(spec.records), spec.totals
    else:
        entries, totals = list(entry_records(spec.entries)), entry_totals(spec.entries)
    if totals.count != len(entries):
        raise ValueError(f"batch {spec.batch_number}: {len(entries)} records, their totals count {totals.count}")
    service_class_code = service_class(has_debits=totals.has_debits, has_credits=totals.has_credits)
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
    control = render(
        BATCH_CONTROL,
        {
            "record_type": "8",
            "service_class_code": service_class_code,
            **totals.control_values(),
            "company_identification": spec.company_identification,
            "originating_dfi": originating_dfi,
            "batch_number": spec.batch_number,
        },
    )
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
    written = batch_count = 0
    file_totals = Totals()
    for batch in spec.batches:
        batch_lines, totals = _batch_records(batch, spec.originating_dfi)
        yield batch_lines
        written += len(batch_lines)
        batch_count += 1
        file_totals.add(totals)
    total_records = 1 + written + 1
    block_count = -(-total_records // BLOCKING_FACTOR)
    control = render(
        FILE_CONTROL,
        {"record_type": "9", "batch_count": batch_count, "block_count": block_count, **file_totals.control_values()},
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
