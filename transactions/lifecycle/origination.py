"""`originate`: batch the due ACH and RCC transactions of a processing window and write its NACHA file.

Two steps so a crash midway is safe to rerun. Step 1 (one database transaction, rows locked with
skip_locked) assigns batches, trace numbers and the Processing status and records an OriginationFile
whose `path` is still empty. Step 2 (no row locks) writes every file whose path is empty, renames it
into place and sets the path with a compare-and-set. A rerun after a crash in step 2 rewrites the
same file from the database; a rerun with nothing due changes nothing."""

from __future__ import annotations

import hashlib
import logging
import os
import string
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from uuid import uuid4

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max, Q

from transactions import calendar
from transactions.lifecycle import nacha
from transactions.lifecycle.recheck import entries_recheck
from transactions.methods import ORIGINATED_METHODS, method_kind
from transactions.methods.sec_codes import payment_type_code
from transactions.models import NOT_SEEDED, Batch, OriginationFile, Status, Transaction, TransactionType
from transactions.rules import DEFAULT_ENTRY_DESCRIPTION, SAME_DAY_MAX_AMOUNT
from transactions.state import Actor, Event, transaction_lock, transition_rows
from vault.commands import Progress, no_progress

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

    def as_json(self) -> dict:
        return {
            "files": self.files,
            "batches": self.batches,
            "transactions": self.transactions,
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


def _next_trace_sequence(odfi: str, window_at: datetime) -> int:
    """Trace numbers are unique per originating DFI and processing day, so the sequence starts at 1 each day.
    Read through the day's files (the window's unique index), their batches and entries (foreign key indexes)."""
    highest = Transaction.objects.filter(
        batch__origination_file__window_at=window_at, trace_number__startswith=odfi
    ).aggregate(highest=Max("trace_number"))["highest"]
    return int(highest[len(odfi) :]) + 1 if highest else 1


def _serialize_batching() -> None:
    """PostgreSQL: a transaction-scoped advisory lock. SQLite serializes writers by itself (IMMEDIATE)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [ORIGINATE_LOCK_KEY])


def _next_file_id_modifier(window_at: datetime) -> str:
    used = set(OriginationFile.objects.filter(window_at=window_at).values_list("file_id_modifier", flat=True))
    for modifier in FILE_ID_MODIFIERS:
        if modifier not in used:
            return modifier
    raise RuntimeError(f"all {len(FILE_ID_MODIFIERS)} file id modifiers of the window {window_at:%Y-%m-%d} are used")


def _file_create(*, window_at: datetime, at: datetime, is_sandbox: bool) -> OriginationFile:
    """The file's record, its path empty until it is written (a sandbox file goes under SANDBOX_DIR)."""
    return OriginationFile.objects.create(
        window_at=window_at,
        file_id_modifier=_next_file_id_modifier(window_at),
        path="",
        created_at=at,
        is_sandbox=is_sandbox,
    )


def _due_transactions(day: date, scope: Q):
    """Pending entries that settle by the next banking day after `day`: a next-day entry goes out the processing
    day before it settles."""
    return (
        Transaction.objects.filter(
            scope,
            NOT_SEEDED,
            status=Status.PENDING,
            method__in=ORIGINATED_METHODS,
            effective_date__lte=calendar.next_business_day(day, include_today=False),
            batch__isnull=True,
            # A suspended company's entries stay Pending until it is reinstated (L7).
            company__suspended_at__isnull=True,
        )
        # The account number stays encrypted in this step: it is decrypted only to write the file.
        .defer("account_number")
        .select_related("company")
        .order_by("company_id", "id")
    )


def _batch_groups(due: list[Transaction], *, day: date, at: datetime) -> dict[tuple, list[Transaction]]:
    """(company, SEC code, description, effective date) -> its entries: a batch header carries one Company Entry
    Description and one effective date, so same-day and next-day entries never share a batch."""
    groups: dict[tuple[int, str, str, date], list[Transaction]] = {}
    last_windows = {txn.company_id: txn.company.last_same_day_window for txn in due}
    for txn in due:
        effective = batch_effective_date(txn, day=day, at=at, last_window=last_windows[txn.company_id])
        groups.setdefault((txn.company_id, sec_code_for(txn), description_for(txn), effective), []).append(txn)
    return groups


@transaction.atomic
def _batch_due(
    *, at: datetime, actor: Actor, progress: Progress, scope: Q, is_sandbox: bool
) -> tuple[OriginationFile | None, int, int]:
    day = processing_day(at)
    _serialize_batching()
    due = list(transaction_lock(_due_transactions(day, scope & Q(company__is_sandbox=is_sandbox)), skip_locked=True))
    due = entries_recheck(due, actor=actor, at=at)
    if not due:
        return None, 0, 0
    odfi = settings.ACH_ORIGINATING_DFI
    window_at = window_start(day)
    sequence = _next_trace_sequence(odfi, window_at)
    origination_file = _file_create(window_at=window_at, at=at, is_sandbox=is_sandbox)
    groups = _batch_groups(due, day=day, at=at)
    debit_total = credit_total = 0
    for batch_number, (key, members) in enumerate(sorted(groups.items()), start=1):
        company_id, sec_code, description, effective = key
        settles_at = calendar.settlement_time(effective)
        debits = sum(txn.amount for txn in members if txn.type == TransactionType.DEBIT)
        credits = sum(txn.amount for txn in members if txn.type == TransactionType.CREDIT)
        batch = Batch.objects.create(
            company_id=company_id,
            origination_file=origination_file,
            standard_entry_class_code=sec_code,
            entry_description=description,
            effective_date=effective,
            batched_at=at,
            batch_number=batch_number,
            entry_count=len(members),
            debit_total=debits,
            credit_total=credits,
        )
        for txn in members:
            if sequence >= 10**TRACE_SEQUENCE_DIGITS:
                raise RuntimeError(f"trace number sequence of {day:%Y-%m-%d} exhausted for the originating DFI")
            txn.batch = batch
            txn.trace_number = odfi + str(sequence).rjust(TRACE_SEQUENCE_DIGITS, "0")
            txn.trace_date = day
            txn.expected_to_settle_at = settles_at
            # From now on the record says what the file says (CONTRACT 12).
            txn.effective_date, txn.is_same_day = effective, effective == day
            sequence += 1
        debit_total += debits
        credit_total += credits
    transition_rows(
        due,
        Event.ORIGINATED,
        actor=actor,
        at=at,
        fields=("batch", "trace_number", "trace_date", "expected_to_settle_at", "effective_date", "is_same_day"),
        progress=progress,
        desc="originate",
    )
    origination_file.batch_count = len(groups)
    origination_file.entry_count = len(due)
    origination_file.debit_total = debit_total
    origination_file.credit_total = credit_total
    origination_file.save(update_fields=["batch_count", "entry_count", "debit_total", "credit_total"])
    return origination_file, len(groups), len(due)


def _entry(txn: Transaction, sec_code: str) -> nacha.Entry:
    codes = nacha.PRENOTE_TRANSACTION_CODES if txn.is_prenote else nacha.TRANSACTION_CODES
    return nacha.Entry(
        transaction_code=codes[(txn.type, txn.account_type)],
        routing_number=txn.routing_number,
        account_number=txn.account_number or "",
        amount=txn.amount,
        individual_id=str(txn.pk),
        individual_name=txn.name,
        trace_number=txn.trace_number,
        discretionary_data=payment_type_code(sec_code),
    )


def file_spec(origination_file: OriginationFile) -> nacha.FileSpec:
    batches = []
    for batch in origination_file.batches.select_related("company").order_by("batch_number"):
        members = batch.transactions.order_by("trace_number")
        batches.append(
            nacha.BatchSpec(
                company_name=batch.company.name,
                company_identification=batch.company.ach_company_id,
                sec_code=batch.standard_entry_class_code,
                entry_description=batch.entry_description,
                effective_date=batch.effective_date,
                batch_number=batch.batch_number,
                entries=[_entry(txn, batch.standard_entry_class_code) for txn in members],
            )
        )
    return nacha.FileSpec(
        immediate_destination=settings.ACH_IMMEDIATE_DESTINATION,
        immediate_origin=settings.ACH_IMMEDIATE_ORIGIN,
        destination_name=settings.ACH_IMMEDIATE_DESTINATION_NAME,
        origin_name=settings.ACH_IMMEDIATE_ORIGIN_NAME,
        originating_dfi=settings.ACH_ORIGINATING_DFI,
        created_at=origination_file.created_at.astimezone(calendar.EASTERN),
        file_id_modifier=origination_file.file_id_modifier,
        batches=batches,
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


def origination_file_write(*, origination_file: OriginationFile) -> str | None:
    """Write the file (no row locks held) and record its path and SHA-256 together; None when another run
    already did. Only then may its batches settle."""
    path = file_path(origination_file)
    text = nacha.file_text(file_spec(origination_file))  # a field it cannot write exactly raises: no file at all
    outbound_dir_create(path.parent)
    partial = path.with_name(f"{path.name}.{os.getpid()}-{uuid4().hex[:8]}.partial")
    try:
        # 0600 from the first byte: every entry carries a full account number (NACHA data security rule).
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, OUTBOUND_FILE_MODE)
        with os.fdopen(descriptor, "w", encoding="ascii", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    digest = hashlib.sha256(text.encode("ascii")).hexdigest()
    claimed = OriginationFile.objects.filter(pk=origination_file.pk, sha256="").update(path=str(path), sha256=digest)
    logger.info("origination file %s written: %s entries", origination_file.uuid, origination_file.entry_count)
    return str(path) if claimed else None


def transactions_originate(
    *,
    at: datetime,
    actor: Actor = ORIGINATE,
    progress: Progress = no_progress,
    company_ids: Sequence[int] | None = None,
) -> OriginationResult:
    """`company_ids`: only those companies' entries (a sandbox clock); files left unwritten are finished either way."""
    result = OriginationResult()
    scope = Q(company_id__in=company_ids) if company_ids is not None else Q()
    # Live and sandbox entries never share a file: a sandbox file goes under SANDBOX_DIR, never to a bank.
    for is_sandbox in (False, True):
        _created, batches, entries = _batch_due(
            at=at, actor=actor, progress=progress, scope=scope, is_sandbox=is_sandbox
        )
        result.batches += batches
        result.transactions += entries
    # Also finishes files a crashed or failed run recorded but never wrote. A file that cannot be written now
    # stays unwritten (its batches do not settle) and is reported; the next run tries it again.
    for origination_file in OriginationFile.objects.filter(sha256="").order_by("id"):
        try:
            written = origination_file_write(origination_file=origination_file)
        except (OSError, ValueError) as exc:
            logger.error("origination file %s not written: %s", origination_file.uuid, exc)
            result.unwritten.append({"originationFileUuid": str(origination_file.uuid), "error": str(exc)})
            continue
        if written:
            result.files.append(written)
    return result
