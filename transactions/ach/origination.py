"""`originate`: batch the due ACH and RCC transactions of a processing window and write its NACHA file.

Two steps so a crash midway is safe to rerun. Step 1 records an OriginationFile being built, whose `path` is still
empty, and batches each company's due entries into it in a database transaction of its own (rows locked with
skip_locked; a few companies at once on PostgreSQL): batches, trace numbers and the Processing status. A rerun
after a crash in step 1 batches the remaining companies into the same file. Once every company is in, the file is
numbered, totalled and built. Step 2 (no row locks) writes every file whose path is empty, renames it
into place and sets the path with a compare-and-set. A rerun after a crash in step 2 rewrites the
same file from the database; a rerun with nothing due changes nothing."""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import string
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from uuid import uuid4

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Max, Q, QuerySet

import nacha
from accounts.models import MerchantSettings
from mandates.models import Mandate
from transactions import calendar
from transactions.ach.finality import windows_stamp
from transactions.ach.recheck import entries_recheck
from transactions.methods import ORIGINATED_METHODS, method_kind
from transactions.methods.sec_codes import payment_type_code
from transactions.models import NOT_SEEDED, Batch, OriginationFile, Status, TraceSequence, Transaction, TransactionType
from transactions.rules import DEFAULT_ENTRY_DESCRIPTION, SAME_DAY_MAX_AMOUNT
from transactions.state import Actor, Event, transaction_lock, transition_rows
from vault.commands import Progress, no_progress
from vault.db import statistics_refresh
from vault.threads import per_company, serialized

logger = logging.getLogger("transactions.lifecycle")

FILE_ID_MODIFIERS = string.ascii_uppercase + string.digits
TRACE_SEQUENCE_DIGITS = 7
# Batching runs one at a time (trace sequence and file id modifier are read-then-written).
ORIGINATE_LOCK_KEY = zlib.crc32(b"transactions.originate")
ORIGINATE = Actor.command("originate")


@dataclass
class OriginationResult:
    files: list[str] = field(default_factory=list)
    batches: int = 0
    transactions: int = 0
    unwritten: list[dict[str, str]] = field(default_factory=list)
    # Entries the re-check refused instead of sending (transactions.ach.recheck): {uuid, status, reason} each.
    refused: list[dict[str, str]] = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "files": self.files,
            "batches": self.batches,
            "transactions": self.transactions,
            "refused": self.refused,
            "unwrittenFiles": self.unwritten,
        }


def processing_day(at: datetime) -> date:
    """The ACH day a file cut at `at` is for: today when it is a business day, else the next one."""
    return calendar.next_business_day(calendar.eastern_now(at).date())


def batch_effective_date(txn: Transaction, *, day: date, at: datetime, last_window: time) -> date:
    """CONTRACT 12: the processing day itself for an entry that asked for Same Day ACH, is due today, is eligible
    and is cut before its company's last same-day window; otherwise the next banking day after the processing day,
    or the requested effective date if later (a same-day request cut too late goes out next day)."""
    same_day = (
        txn.is_same_day
        and txn.effective_date <= day
        and txn.amount <= SAME_DAY_MAX_AMOUNT
        and calendar.eastern_now(at).date() == day
        and calendar.eastern_now(at).time() < last_window
    )
    if same_day:
        return day
    return max(calendar.next_business_day(day, include_today=False), txn.effective_date)


def window_start(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=calendar.EASTERN)


def sec_code_for(txn: Transaction) -> str:
    return txn.standard_entry_class_code or method_kind(txn.method).file_sec_code


def description_for(txn: Transaction) -> str:
    return txn.entry_description or DEFAULT_ENTRY_DESCRIPTION


def _last_trace_sequence(odfi: str, is_sandbox: bool) -> int:
    """Where a DFI's sequence stood before sequences were kept (TraceSequence): the highest number of its latest
    file, read through the file's batches and entries (foreign key indexes). Once per DFI."""
    latest = OriginationFile.objects.filter(is_sandbox=is_sandbox).order_by("-window_at").values("window_at")[:1]
    highest = Transaction.objects.filter(
        batch__origination_file__window_at__in=latest, trace_number__startswith=odfi
    ).aggregate(highest=Max("trace_number"))["highest"]
    return int(highest[len(odfi) :]) if highest else 0


def trace_sequence_number(position: int) -> int:
    """The sequence number at `position` of the endless sequence 1, 2, ..., TRACE_SEQUENCE_LAST, 1, 2, ..."""
    return (position - 1) % settings.ACH_TRACE_SEQUENCE_LAST + 1


def _trace_block_reserve(odfi: str, count: int, *, day: date, is_sandbox: bool) -> int:
    """`count` numbers of the DFI's sequence for one run, reserved (committed) before any is handed out, so a run
    that stops midway never hands its numbers out again; the position of the first. Runs hold ORIGINATE_LOCK_KEY."""
    if count > settings.ACH_TRACE_SEQUENCE_LAST:
        raise RuntimeError(f"trace number sequence of {day:%Y-%m-%d} exhausted for the originating DFI")
    with transaction.atomic():
        sequence = TraceSequence.objects.select_for_update().filter(originating_dfi=odfi).first()
        if sequence is None:
            sequence = TraceSequence(originating_dfi=odfi, last=_last_trace_sequence(odfi, is_sandbox))
        first = sequence.last + 1
        sequence.last = trace_sequence_number(sequence.last + count)
        sequence.save()
    return first


def originating_dfi(is_sandbox: bool) -> str:
    """The sandbox has a trace space of its own: its files never go to a bank, and a bank's file never names them."""
    return settings.SANDBOX_ORIGINATING_DFI if is_sandbox else settings.ACH_ORIGINATING_DFI


def _next_file_id_modifier(window_at: datetime, is_sandbox: bool) -> str:
    used = set(
        OriginationFile.objects.filter(window_at=window_at, is_sandbox=is_sandbox).values_list(
            "file_id_modifier", flat=True
        )
    )
    for modifier in FILE_ID_MODIFIERS:
        if modifier not in used:
            return modifier
    raise RuntimeError(f"all {len(FILE_ID_MODIFIERS)} file id modifiers of the window {window_at:%Y-%m-%d} are used")


def _file_create(*, window_at: datetime, at: datetime, is_sandbox: bool) -> OriginationFile:
    """The file's record, being built (its companies batch into it) and its path empty until it is written (a
    sandbox file goes under SANDBOX_DIR)."""
    return OriginationFile.objects.create(
        window_at=window_at,
        file_id_modifier=_next_file_id_modifier(window_at, is_sandbox),
        path="",
        created_at=at,
        is_sandbox=is_sandbox,
        building=True,
        awaiting_bank=_awaits_bank(is_sandbox=is_sandbox),
    )


def _awaits_bank(*, is_sandbox: bool) -> bool:
    """Whether a new file's entries wait for the bank connection before they settle (CONTRACT 16): a live file
    while the connection is configured. Without one the operator carries the file, as before it existed."""
    return not is_sandbox and bool(settings.BANK_SFTP_URL)


# Entries are batched this many at a time inside the one batching transaction (keyset on id): memory stays flat
# however many are due. A run with fewer due entries batches them exactly as one set.
BATCH_CHUNK = 20_000
# What batching and the re-check read of an entry: no model instance per entry (about 60 us of CPU each).
DUE_FIELDS = (
    "pk",
    "company_id",
    "status",
    "method",
    "type",
    "amount",
    "standard_entry_class_code",
    "entry_description",
    "is_same_day",
    "effective_date",
    "payment_method_id",
    "account_validation_id",
    "routing_number",
    "account_type",
    "account_number_hash",
    "unpadded_account_hash",
)
# What `originate` writes of each entry it batches.
BATCHED_FIELDS = ("batch", "trace_number", "trace_date", "expected_to_settle_at", "effective_date", "is_same_day")


class DueEntry:
    """A due entry as batching reads it (DUE_FIELDS) and what batching gives it (BATCHED_FIELDS)."""

    __slots__ = (*DUE_FIELDS, "batch_id", "trace_number", "trace_date", "expected_to_settle_at")

    def __init__(self, *values) -> None:
        for name, value in zip(DUE_FIELDS, values, strict=True):
            setattr(self, name, value)


def _due_transactions(day: date, scope: Q):
    """Pending entries that settle by the next banking day after `day`: a next-day entry goes out the processing
    day before it settles."""
    return Transaction.objects.filter(
        scope,
        NOT_SEEDED,
        status=Status.PENDING,
        method__in=ORIGINATED_METHODS,
        effective_date__lte=calendar.next_business_day(day, include_today=False),
        batch__isnull=True,
        # A suspended company's entries stay Pending until it is reinstated (L7).
        company__suspended_at__isnull=True,
    )


def _due_chunks(due) -> Iterator[list[DueEntry]]:
    """The due entries, locked (skip_locked) and read a chunk at a time in id order. The account number stays
    encrypted in this step: it is decrypted only to write the file."""
    last = 0
    while True:
        rows = transaction_lock(due.filter(pk__gt=last), skip_locked=True).order_by("pk").values_list(*DUE_FIELDS)
        chunk = [DueEntry(*values) for values in rows[:BATCH_CHUNK]]
        if not chunk:
            return
        last = chunk[-1].pk
        yield chunk
        if len(chunk) < BATCH_CHUNK:
            return


def _batch_groups(due: list[DueEntry], *, day: date, at: datetime, last_windows: dict[int, time]) -> dict:
    """(company, SEC code, description, effective date) -> its entries: a batch header carries one Company Entry
    Description and one effective date, so same-day and next-day entries never share a batch."""
    groups: dict[tuple[int, str, str, date], list[DueEntry]] = {}
    for txn in due:
        effective = batch_effective_date(txn, day=day, at=at, last_window=last_windows[txn.company_id])
        groups.setdefault((txn.company_id, sec_code_for(txn), description_for(txn), effective), []).append(txn)
    return groups


class _TraceSequence:
    """The run's reserved trace sequence numbers, handed out a block per chunk to the companies batching at once
    (their threads share one run): each entry's number is unique, and ascends within its batch but where the
    sequence wraps (a file lists a batch's entries in trace number order)."""

    def __init__(self, first: int, count: int, day: date) -> None:
        self.next, self.end, self.day = first, first + count, day
        self.lock = threading.Lock()

    def take(self, count: int) -> int:
        with self.lock:
            first = self.next
            if first + count > self.end:
                raise RuntimeError(f"more entries batched on {self.day:%Y-%m-%d} than trace numbers reserved")
            self.next += count
        return first


@dataclass(frozen=True)
class _Build:
    """What the companies of one batching run share: the moment, the file they batch into and its trace numbers."""

    day: date
    at: datetime
    actor: Actor
    origination_file: OriginationFile
    sequence: _TraceSequence
    spool: EntrySpool
    odfi: str
    refused: list[dict[str, str]]  # the run's result's list: the companies' threads add to it


@dataclass
class _CompanyBatching:
    """One company's batches in the file being built, by key, with their totals."""

    build: _Build
    last_windows: dict[int, time]
    batches: dict[tuple, Batch] = field(default_factory=dict)

    def batch_for(self, key: tuple) -> Batch:
        if key not in self.batches:
            company_id, sec_code, description, effective = key
            self.batches[key] = Batch.objects.create(
                company_id=company_id,
                origination_file=self.build.origination_file,
                standard_entry_class_code=sec_code,
                entry_description=description,
                effective_date=effective,
                batched_at=self.build.at,
                batch_number=0,  # numbered when the file is finished (_file_finish)
            )
        return self.batches[key]

    def assign(self, due: list[DueEntry]) -> None:
        """Batches, trace numbers and the file's view of each entry (trace numbers ascend within a batch)."""
        build = self.build
        number = build.sequence.take(len(due))
        groups = _batch_groups(due, day=build.day, at=build.at, last_windows=self.last_windows)
        for key, members in sorted(groups.items()):
            batch = self.batch_for(key)
            effective = key[3]
            settles_at = calendar.settlement_time(effective)
            for txn in members:
                txn.batch_id = batch.pk
                txn.trace_number = build.odfi + str(trace_sequence_number(number)).rjust(TRACE_SEQUENCE_DIGITS, "0")
                txn.trace_date = build.day
                txn.expected_to_settle_at = settles_at
                # From now on the record says what the file says (CONTRACT 12).
                txn.effective_date, txn.is_same_day = effective, effective == build.day
                number += 1
                batch.entry_count += 1
                if txn.type == TransactionType.DEBIT:
                    batch.debit_total += txn.amount
                    if txn.amount > 0 and method_kind(txn.method).returnable:
                        batch.debit_count += 1  # a debit of the return rates (a prenote moves no money)
                else:
                    batch.credit_total += txn.amount

    def save(self) -> None:
        for batch in self.batches.values():
            batch.save(update_fields=["entry_count", "debit_total", "credit_total", "debit_count"])


def _company_batch(company_id: int, *, build: _Build, due: QuerySet[Transaction]) -> tuple[int, int]:
    """One company's due entries into the file being built, in a database transaction of its own: a chunk at a
    time re-checked, batched and moved to Processing. Returns (batches made, entries batched)."""
    with transaction.atomic():
        last_window = MerchantSettings.objects.only("same_day_windows").get(pk=company_id).last_same_day_window
        batching = _CompanyBatching(build=build, last_windows={company_id: last_window})
        entries = 0
        for chunk in _due_chunks(due.filter(company_id=company_id)):
            chunk = entries_recheck(chunk, actor=build.actor, at=build.at, refused=build.refused)
            if not chunk:
                continue
            batching.assign(chunk)
            transition_rows(chunk, Event.ORIGINATED, actor=build.actor, at=build.at, fields=BATCHED_FIELDS)
            entries += len(chunk)
        batching.save()
    build.spool.write(build.origination_file, batching.batches.values())
    return len(batching.batches), entries


# The order of a file's batches, and so their numbers (ascending in the file).
BATCH_ORDER = ("company_id", "standard_entry_class_code", "entry_description", "effective_date", "pk")


@transaction.atomic
def _file_finish(origination_file: OriginationFile) -> None:
    """Once every company has batched into it: the batches numbered, the file's counts and totals, and the file
    built, which the write step then takes. A file no entry went into (every due entry declined) is deleted."""
    batches = list(origination_file.batches.order_by(*BATCH_ORDER))
    if not batches:
        origination_file.delete()
        return
    for number, batch in enumerate(batches, start=1):
        batch.batch_number = number
    Batch.objects.bulk_update(batches, ["batch_number"])
    origination_file.batch_count = len(batches)
    origination_file.entry_count = sum(batch.entry_count for batch in batches)
    origination_file.debit_total = sum(batch.debit_total for batch in batches)
    origination_file.credit_total = sum(batch.credit_total for batch in batches)
    origination_file.building = False
    origination_file.save(update_fields=["batch_count", "entry_count", "debit_total", "credit_total", "building"])


def _file_being_built(window_at: datetime, is_sandbox: bool) -> OriginationFile | None:
    """A file an earlier run left being built (it stopped midway): this window's is built on, any other finished
    as it is (its entries went out in its own window)."""
    current = None
    for origination_file in OriginationFile.objects.filter(building=True, is_sandbox=is_sandbox).order_by("pk"):
        if current is None and origination_file.window_at == window_at:
            current = origination_file
        else:
            _file_finish(origination_file)
    return current


def _batch_due(
    *,
    at: datetime,
    actor: Actor,
    progress: Progress,
    scope: Q,
    is_sandbox: bool,
    workers: int,
    spool: EntrySpool,
    refused: list[dict[str, str]],
) -> tuple[int, int]:
    """The due entries into this window's file, a company at a time (`workers` companies at once on PostgreSQL,
    each in a database transaction of its own), then the file finished. A run that stops midway leaves the file
    being built, with the companies it batched; the next run batches the rest into it. Returns (batches made,
    entries batched)."""
    day = processing_day(at)
    window_at = window_start(day)
    due = _due_transactions(day, scope & Q(company__is_sandbox=is_sandbox))
    with serialized(ORIGINATE_LOCK_KEY):  # the trace sequence and file id modifier are read, then written
        origination_file = _file_being_built(window_at, is_sandbox)
        # The entries due now: a trace number is reserved for each (one made meanwhile waits for the next run).
        counted = due.order_by().values("company_id").annotate(entries=Count("pk"), newest=Max("pk"))
        company_ids, entries, newest = [], 0, 0
        for row in counted.order_by("company_id"):
            company_ids.append(row["company_id"])
            entries, newest = entries + row["entries"], max(newest, row["newest"])
        due = due.filter(pk__lte=newest)
        made = []
        if company_ids:
            odfi = originating_dfi(is_sandbox)
            first = _trace_block_reserve(odfi, entries, day=day, is_sandbox=is_sandbox)
            if origination_file is None:
                origination_file = _file_create(window_at=window_at, at=at, is_sandbox=is_sandbox)
            build = _Build(
                day=day,
                at=at,
                actor=actor,
                origination_file=origination_file,
                sequence=_TraceSequence(first, entries, day),
                spool=spool,
                odfi=odfi,
                refused=refused,
            )
            made = per_company(
                company_ids,
                functools.partial(_company_batch, build=build, due=due),
                workers=workers,
                progress=progress,
                desc="originate",
            )
        if origination_file is not None:
            _file_finish(origination_file)
    return sum(batches for batches, _entries in made), sum(entries for _batches, entries in made)


# What the file says of each entry, read a batch at a time (the account number decrypted by its field).
ENTRY_FIELDS = ("pk", "type", "account_type", "amount", "account_validation_id", "routing_number", "account_number")
ENTRY_FIELDS += ("name", "trace_number", "mandate__type")


def _entry(values: tuple, sec_code: str) -> nacha.Entry:
    pk, txn_type, account_type, amount, validation_id, routing, account, name, trace, mandate_type = values
    is_prenote = amount == 0 and validation_id is not None  # Transaction.is_prenote
    codes = nacha.PRENOTE_TRANSACTION_CODES if is_prenote else nacha.TRANSACTION_CODES
    return nacha.Entry(
        transaction_code=codes[(txn_type, account_type)],
        routing_number=routing,
        account_number=account or "",
        amount=amount,
        individual_id=str(pk),
        individual_name=name,
        trace_number=trace,
        discretionary_data=payment_type_code(sec_code, recurring=mandate_type == Mandate.Type.RECURRING),
    )


def _batch_entries(batch: Batch) -> list[nacha.Entry]:
    members = batch.transactions.order_by("trace_number").values_list(*ENTRY_FIELDS)
    return [_entry(values, batch.standard_entry_class_code) for values in members.iterator(chunk_size=5000)]


# The folder, beside a file's outbound files, of the entry records rendered while it is built.
SPOOL_DIR = ".building"


class EntrySpool:
    """Entry records rendered while the file is built: each batch's right after its company commits (while other
    companies still batch), in a file of its own (0600, in a `.building` folder beside the outbound files), so the
    file's write copies them instead of decrypting and rendering every entry after the last company. Only the run
    that made them reads them, and clears them when it ends; the write renders any batch without one (an earlier
    run's batch, a spool that could not be written or read)."""

    def __init__(self) -> None:
        self.paths: dict[int, Path] = {}
        self.totals: dict[int, nacha.Totals] = {}
        self.token = f"{os.getpid()}-{uuid4().hex[:8]}"

    def write(self, origination_file: OriginationFile, batches: Iterable[Batch]) -> None:
        directory = file_path(origination_file).parent / SPOOL_DIR
        for batch in batches:
            path = directory / f"{origination_file.uuid.hex}-{batch.pk}-{self.token}.entries"
            try:
                entries = _batch_entries(batch)
                text = "".join(record + "\n" for record in nacha.entry_records(entries))
                totals = nacha.entry_totals(entries)
                outbound_dir_create(directory)
                descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OUTBOUND_FILE_MODE)
                with os.fdopen(descriptor, "w", encoding="ascii") as handle:
                    handle.write(text)
            except (OSError, ValueError) as exc:  # the write renders this batch itself, and reports what fails
                with suppress(OSError):
                    path.unlink(missing_ok=True)
                logger.warning("entries of batch %s not spooled: %s", batch.uuid, exc)
                continue
            self.paths[batch.pk] = path
            self.totals[batch.pk] = totals

    def records(self, batch: Batch) -> tuple[list[str], nacha.Totals | None]:
        """The batch's entry records as spooled and what their entries add up to (the integers that made them)."""
        path = self.paths.get(batch.pk)
        try:
            records = path.read_text(encoding="ascii").splitlines() if path else []
        except OSError:
            records = []
        return records, self.totals.get(batch.pk) if records else None

    def clear(self) -> None:
        for path in self.paths.values():
            path.unlink(missing_ok=True)
        for directory in {path.parent for path in self.paths.values()}:
            with suppress(OSError):  # another run's spool is still in it
                directory.rmdir()
        self.paths.clear()
        self.totals.clear()


def _batch_specs(origination_file: OriginationFile, spool: EntrySpool) -> Iterator[nacha.BatchSpec]:
    """One batch at a time, its entries in trace order: memory holds one batch, never the file."""
    for batch in origination_file.batches.select_related("company").order_by("batch_number"):
        records, totals = spool.records(batch)
        yield nacha.BatchSpec(
            company_name=batch.company.name,
            company_identification=batch.company.ach_company_id,
            sec_code=batch.standard_entry_class_code,
            entry_description=batch.entry_description,
            effective_date=batch.effective_date,
            batch_number=batch.batch_number,
            entries=() if records else _batch_entries(batch),
            records=records,
            totals=totals,
        )


def file_spec(origination_file: OriginationFile, spool: EntrySpool | None = None) -> nacha.FileSpec:
    return nacha.FileSpec(
        immediate_destination=settings.ACH_IMMEDIATE_DESTINATION,
        immediate_origin=settings.ACH_IMMEDIATE_ORIGIN,
        destination_name=settings.ACH_IMMEDIATE_DESTINATION_NAME,
        origin_name=settings.ACH_IMMEDIATE_ORIGIN_NAME,
        originating_dfi=originating_dfi(origination_file.is_sandbox),
        created_at=origination_file.created_at.astimezone(calendar.EASTERN),
        file_id_modifier=origination_file.file_id_modifier,
        batches=_batch_specs(origination_file, spool or EntrySpool()),
        reference_code=str(origination_file.pk),
    )


def file_path(origination_file: OriginationFile) -> Path:
    day = origination_file.window_at.astimezone(calendar.EASTERN).date()
    name = f"ACH_{day:%Y%m%d}_{origination_file.file_id_modifier}_{origination_file.uuid.hex[:8]}.ach"
    return Path(settings.SANDBOX_DIR if origination_file.is_sandbox else settings.OUTBOUND_DIR) / name


OUTBOUND_DIR_MODE = 0o700
OUTBOUND_FILE_MODE = 0o600


def outbound_dir_create(directory: Path) -> None:
    """The outbound folder, readable by the service's user only (also when it already existed, looser)."""
    directory.mkdir(mode=OUTBOUND_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(directory, OUTBOUND_DIR_MODE)


def origination_file_write(*, origination_file: OriginationFile, spool: EntrySpool | None = None) -> str | None:
    """Write the file (no row locks held), streamed a batch at a time, and record its path and SHA-256 together;
    None when another run already did. Only then may its batches settle. A field the writer cannot write exactly
    raises before the file is renamed into place: no file at all."""
    path = file_path(origination_file)
    outbound_dir_create(path.parent)
    partial = path.with_name(f"{path.name}.{os.getpid()}-{uuid4().hex[:8]}.partial")
    digest = hashlib.sha256()
    try:
        # 0600 from the first byte: every entry carries a full account number (NACHA data security rule).
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OUTBOUND_FILE_MODE)
        with os.fdopen(descriptor, "wb") as handle:
            for lines in nacha.file_chunks(file_spec(origination_file, spool)):
                data = lines.encode("ascii")
                digest.update(data)
                handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    claimed = OriginationFile.objects.filter(pk=origination_file.pk, sha256="").update(
        path=str(path), sha256=digest.hexdigest()
    )
    logger.info("origination file %s written: %s entries", origination_file.uuid, origination_file.entry_count)
    return str(path) if claimed else None


def transactions_originate(
    *,
    at: datetime,
    actor: Actor = ORIGINATE,
    progress: Progress = no_progress,
    company_ids: Sequence[int] | None = None,
    workers: int | None = None,
) -> OriginationResult:
    """`company_ids`: only those companies' entries (a sandbox clock); files left unwritten are finished either way.
    `workers`: how many companies batch at once on PostgreSQL (settings.ORIGINATE_WORKERS when None)."""
    workers = settings.ORIGINATE_WORKERS if workers is None else workers
    result = OriginationResult()
    scope = Q(company_id__in=company_ids) if company_ids is not None else Q()
    spool = EntrySpool()
    try:
        # Live and sandbox entries never share a file: a sandbox file goes under SANDBOX_DIR, never to a bank.
        for is_sandbox in (False, True):
            batches, entries = _batch_due(
                at=at,
                actor=actor,
                progress=progress,
                scope=scope,
                is_sandbox=is_sandbox,
                workers=workers,
                spool=spool,
                refused=result.refused,
            )
            result.batches += batches
            result.transactions += entries
        statistics_refresh(Transaction, changed=result.transactions)
        built_files_write(result, spool)
    finally:
        spool.clear()
    return result


def built_files_write(result: OriginationResult, spool: EntrySpool | None = None) -> None:
    """Every built file whose path is still empty, this run's and any a crashed or failed run recorded but never
    wrote; never a file still being built. A file that cannot be written now stays unwritten (its batches do not
    settle) and is reported; the next run tries it again."""
    for origination_file in OriginationFile.objects.filter(sha256="", building=False).order_by("id"):
        try:
            written = origination_file_write(origination_file=origination_file, spool=spool)
        except (OSError, ValueError) as exc:
            logger.error("origination file %s not written: %s", origination_file.uuid, exc)
            result.unwritten.append({"originationFileUuid": str(origination_file.uuid), "error": str(exc)})
            continue
        if written:
            result.files.append(written)


@transaction.atomic
def origination_file_again(*, origination_file: OriginationFile, at: datetime) -> OriginationFile:
    """The same batches and entries (same trace numbers) in a new file, written: a file the bank rejected, sent
    again by an operator. The old record stays, without batches. The new file is of the window of `at`, the day its
    header is dated, and takes that window's next file id modifier, so no two files to the bank carry the same File
    Creation Date and File ID Modifier (ACH review 2026-12-07 H3); each batch whose effective date has passed (the
    original never entered the network) takes the next valid one, its entries' settlement with it (M4)."""
    window_at = window_start(processing_day(at))
    with serialized(ORIGINATE_LOCK_KEY):
        again = OriginationFile.objects.create(
            window_at=window_at,
            file_id_modifier=_next_file_id_modifier(window_at, origination_file.is_sandbox),
            path="",
            created_at=at,
            is_sandbox=origination_file.is_sandbox,
            batch_count=origination_file.batch_count,
            entry_count=origination_file.entry_count,
            debit_total=origination_file.debit_total,
            credit_total=origination_file.credit_total,
            awaiting_bank=not origination_file.is_sandbox,  # until the bank acknowledges it (bank.state)
        )
        origination_file.batches.update(origination_file=again)
        _effective_dates_renew(again, day=processing_day(at))
    origination_file_write(origination_file=again)
    again.refresh_from_db()
    return again


def _effective_dates_renew(origination_file: OriginationFile, *, day: date) -> None:
    """A resent file's batches dated no earlier than the banking day after `day` (its processing day), and their
    entries with them: the effective date, when they settle (never same-day), their windows."""
    earliest = calendar.next_business_day(day, include_today=False)
    for batch in origination_file.batches.filter(effective_date__lt=earliest):
        batch.effective_date = earliest
        batch.save(update_fields=["effective_date"])
        batch.transactions.update(
            effective_date=earliest, expected_to_settle_at=calendar.settlement_time(earliest), is_same_day=False
        )
        windows_stamp(batch.transactions.all())  # the return windows and fundsAvailableAt count from the new date
