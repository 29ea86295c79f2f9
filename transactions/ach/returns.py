"""`import_returns`: apply an RDFI's return / notice-of-change file (NACHA or CSV) to the transactions it
names: each item to the one entry that agrees with everything it says of it (transactions.ach.matching), or, for a
sandbox simulation, to the entry it names.

The file is copied where no one else can write to it and checked whole first (transactions.ach.return_files), read
a line at a time and never held whole. The IngestionFile (unique by SHA-256, so a re-import answers the first
summary) is recorded as being applied; then each chunk of the file is applied a few companies at a time, each in a
database transaction of its own, in IMPORT_RETURNS_WORKERS forked processes (its Python is most of its work):
returns, notices of change, and dishonored / contested dishonored returns, which are recorded beside the return they
answer and change nothing else. What it cannot apply is parked (ParkedReturnItem) and listed under `exceptions`.
Each transaction records what it applied (IngestionPart); once every part is in, the file's summary is written. A
crash midway leaves the file being applied, and importing the same file again applies what no part holds."""

from __future__ import annotations

import functools
import logging
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import islice

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

import nacha
from payments.models import PaymentMethod
from payments.services import MethodCorrections, payment_method_block, payment_methods_lock
from transactions import calendar
from transactions.ach import matching
from transactions.ach.answers import Answers, answers_apply
from transactions.ach.return_files import CODE, FileItem, ReturnFileSource, read_return_file
from transactions.models import (
    Batch,
    ChangeNotice,
    DishonoredReturn,
    IngestionFile,
    IngestionPart,
    ParkedReturnItem,
    Status,
    Transaction,
    TransactionReturn,
)
from transactions.return_codes import (
    CHANGE_CODES,
    MANDATE_REVOKING_CODES,
    RETURN_CODES,
    Corrected,
    PolicyAction,
    ReturnCode,
    TimeFrame,
)
from transactions.risk.policies import PolicyBook, ReturnFollowUp, return_rate_alerts_evaluate
from transactions.state import Actor, transaction_lock
from vault.commands import Progress, no_progress
from vault.db import ids_in, loaded_instance, statistics_refresh, unsaved_instance
from vault.records import mask, text_or_none
from vault.threads import CompanyProcesses, serialized

logger = logging.getLogger("transactions.lifecycle")

IMPORT_RETURNS = Actor.command("import_returns")
# A Reversed debit was Settled first: its return is a late return like any other (its reversal credit is
# voided when it has not gone out yet, so the payer is not refunded twice).
RETURNABLE = (Status.PROCESSING, Status.SETTLED, Status.REVERSED)
LATE = (Status.SETTLED, Status.REVERSED)

LOCK_CHUNK = 10_000  # items of the file read and matched at once; each company's are applied in one transaction
IMPORT_LOCK_NAMESPACE = zlib.crc32(b"transactions.import_returns") << 28


@dataclass
class _Applied:
    """What one part of the import did, for the file's summary: counts, the unmatched trace numbers and the parked
    items, each with its position in the file (the summary lists them in file order)."""

    returns: int = 0
    notices: int = 0
    dishonored: int = 0
    contested: int = 0
    unmatched: list[tuple[int, str]] = field(default_factory=list)
    exceptions: list[tuple[int, dict]] = field(default_factory=list)
    touched: set[int] = field(default_factory=set)  # companies whose return rates may have moved

    def part(self) -> dict:
        counts = {key: getattr(self, name) for key, name in SUMMARY_COUNTS.items()}
        return {**counts, "unmatched": self.unmatched, "exceptions": self.exceptions, "touched": sorted(self.touched)}


SUMMARY_COUNTS = {
    "returns": "returns",
    "notices": "notices",
    "dishonoredReturns": "dishonored",
    "contestedReturns": "contested",
}


def return_due_by(code: ReturnCode, settled_on: date | None) -> date | None:
    """The last day a return of this code is timely for an entry that settled on `settled_on` (None when the code
    has no fixed window or the entry has no settlement day yet): the banking day on which the rule's deadline
    ("opening of business") falls, timely through its end, as return files arrive during it (CONTRACT 12)."""
    if settled_on is None or code.time_frame is None:
        return None
    return _deadline(code.time_frame, settled_on)


@functools.lru_cache(maxsize=4096)
def _deadline(time_frame: TimeFrame, settled_on: date) -> date:
    """A file's returns settled on a few days: each deadline is worked out from the holiday calendar once."""
    if time_frame == TimeFrame.SIXTY_DAYS:
        return calendar.unauthorized_return_deadline(settled_on)  # also a debit's returnWindows (mark_final)
    return calendar.administrative_return_deadline(settled_on)


# What a return or a notice reads of its entry: every column but the account number (a correction reads the method's).
ENTRY_COLUMNS = [field.attname for field in Transaction._meta.concrete_fields if field.attname != "account_number"]


def _entries_locked(matching: QuerySet[Transaction]) -> dict[int, Transaction]:
    """The entries, locked in id order, by id: instances made from their rows without Model.__init__ (which cost
    about 30 us an entry, a tenth of the import's Python)."""
    rows = transaction_lock(matching).order_by("pk").values_list(*ENTRY_COLUMNS)
    entries = (loaded_instance(Transaction, dict(zip(ENTRY_COLUMNS, row, strict=True))) for row in rows)
    return {entry.pk: entry for entry in entries}


@dataclass(kw_only=True)
class _Chunk(Answers):
    """The rows one chunk of the file touches, locked together (methods, then transactions, by id), what its items
    find there, and the writes it gathers (`Answers`) so they go out as a few statements instead of several per
    entry, in the order of ANSWER_STEPS (transactions/ach/answers.py)."""

    returns: dict[int, TransactionReturn]  # by transaction id: the return each entry already has (or got here)
    answered: set[tuple[int, str]]  # (transaction id, kind) of the dishonored / contested returns it has
    settled_on: dict[int, date]  # batch id -> its effective (settlement) date
    noticed: set[int]
    policies: PolicyBook
    applied: _Applied
    position: int = 0  # in the file, of the item being applied
    unmatched_reason: str | None = None  # why the item being applied names no entry, when it names none

    @classmethod
    def lock(
        cls, matched: Sequence[int | None], ingestion: IngestionFile, at: datetime, actor: Actor, applied: _Applied
    ) -> _Chunk:
        matching = Transaction.objects.filter(ids_in({pk for pk in matched if pk is not None}))
        method_ids = set(matching.exclude(payment_method=None).values_list("payment_method_id", flat=True))
        methods = payment_methods_lock(ids=method_ids, numbers=False)
        txns = _entries_locked(matching)
        ids = list(txns)
        batches = Batch.objects.filter(pk__in={txn.batch_id for txn in txns.values() if txn.batch_id})
        return cls(
            ingestion=ingestion,
            at=at,
            actor=actor,
            transactions=txns,
            methods=methods,
            returns={
                entry.transaction_id: entry
                for entry in TransactionReturn.objects.filter(ids_in(ids, field="transaction_id"))
            },
            answered=set(
                DishonoredReturn.objects.filter(ids_in(ids, field="transaction_id")).values_list(
                    "transaction_id", "kind"
                )
            ),
            settled_on=dict(batches.values_list("pk", "effective_date")),
            noticed=set(
                ChangeNotice.objects.filter(ids_in(ids, field="transaction_id")).values_list(
                    "transaction_id", flat=True
                )
            ),
            policies=PolicyBook({txn.company_id for txn in txns.values()}),
            applied=applied,
        )

    def park(self, item: nacha.ReturnedItem, txn: Transaction | None, reason: str) -> None:
        code = item.code if CODE.match(item.code) else ""  # never more of the file's text than a code
        self.applied.exceptions.append(
            (self.position, {"trace": item.original_trace, "code": text_or_none(code), "reason": reason})
        )
        self.parked.append(
            ParkedReturnItem(
                ingestion_file=self.ingestion,
                transaction_uuid=txn.uuid if txn else None,
                trace_number=item.original_trace,
                code=code,
                reason=reason[:255],
                created_at=self.at,
            )
        )


def _apply(file_item: FileItem, txn: Transaction | None, chunk: _Chunk) -> None:
    item, applied = file_item.item, chunk.applied
    if file_item.parked:
        chunk.park(item, txn, file_item.parked)
        return
    if txn is None:
        # No entry, or several, agree with what the bank sent back (CONTRACT 12 "Matching"): nothing applied. A
        # return or notice is also listed in `unmatched`, as before.
        chunk.park(item, None, chunk.unmatched_reason or matching.NO_ENTRY)
        if item.kind == "noc" or RETURN_CODES[item.code].is_return:
            applied.unmatched.append((chunk.position, item.original_trace))
        return
    if item.kind == "noc":
        done = txn is not None and _apply_notice(item, txn, chunk)
        applied.notices += done
    elif RETURN_CODES[item.code].is_return:
        done = txn is not None and _apply_return(item, txn, chunk)
        applied.returns += done
        if done:
            applied.touched.add(txn.company_id)
    else:
        _apply_dishonor(item, txn, chunk)
        return
    if not done:
        applied.unmatched.append((chunk.position, item.original_trace))


def _apply_return(item: nacha.ReturnedItem, txn: Transaction, chunk: _Chunk) -> bool:
    if txn.status not in RETURNABLE or txn.pk in chunk.returns:
        return False
    code = RETURN_CODES[item.code]
    due_by = return_due_by(code, chunk.settled_on.get(txn.batch_id))
    entry = unsaved_instance(  # by ids, without Model.__init__ (most of this line's cost)
        TransactionReturn,
        company_id=txn.company_id,
        transaction_id=txn.pk,
        return_code=item.code,
        return_reason=code.reason,
        returned_at=chunk.at,
        ingestion_file_id=chunk.ingestion.pk,
        due_by=due_by,
        is_untimely=due_by is not None and calendar.eastern_now(chunk.at).date() > due_by,
    )
    chunk.returns[txn.pk] = entry
    chunk.new_returns.append(entry)
    if txn.status in LATE:
        chunk.late_ids.append(txn.pk)
    if txn.status == Status.REVERSED:
        chunk.returned_reversals.append(txn.reversal_uuid)
    actions = chunk.policies.actions(txn.company_id, item.code)
    method = chunk.methods.get(txn.payment_method_id)
    blocked = PolicyAction.BLOCK_METHOD in actions and method is not None
    if blocked and payment_method_block(
        method, return_code=item.code, reason=code.reason, at=chunk.at, announce=chunk.method_events
    ):
        chunk.method_blocks.append((method, txn, item.code))  # written by answers.methods_block, with their evidence
    if actions - {PolicyAction.BLOCK_METHOD}:
        chunk.followups.append(ReturnFollowUp(txn=txn, code=item.code, actions=actions))
    if item.code in MANDATE_REVOKING_CODES and txn.payment_method_id is not None:
        # Revoked at the chunk's flush, all in one query; the first such return of a method names the reason.
        chunk.mandate_revocations.setdefault(
            (txn.company_id, txn.payment_method_id), f"return {item.code}: {code.reason}"
        )
    return True


def _apply_dishonor(item: nacha.ReturnedItem, txn: Transaction | None, chunk: _Chunk) -> None:
    """A dishonored or contested dishonored return: recorded beside the return it answers, and nothing else."""
    code = RETURN_CODES[item.code]
    kind = DishonoredReturn.Kind(code.kind.value)
    answered = chunk.returns.get(txn.pk) if txn is not None else None
    if answered is None:
        chunk.park(item, txn, f"{kind.value} return with no return of this entry to answer")
        return
    if (txn.pk, kind.value) in chunk.answered:
        chunk.park(item, txn, f"the return of this entry already has a {kind.value} return")
        return
    dishonored = DishonoredReturn.Kind.DISHONORED
    if kind != dishonored and (txn.pk, dishonored.value) not in chunk.answered:
        # A contested dishonored return answers our dishonor of the return (CONTRACT 12): without one, nothing.
        chunk.park(item, txn, f"{kind.value} return with no {dishonored.value} return to answer")
        return
    chunk.answered.add((txn.pk, kind.value))
    chunk.new_dishonors.append(
        DishonoredReturn(
            company_id=txn.company_id,
            kind=kind,
            transaction=txn,
            transaction_return=answered,
            code=item.code,
            reason=code.reason,
            received_at=chunk.at,
            ingestion_file=chunk.ingestion,
        )
    )
    if kind == DishonoredReturn.Kind.DISHONORED:
        chunk.applied.dishonored += 1
    else:
        chunk.applied.contested += 1


def _method_values(method: PaymentMethod | None, txn: Transaction, fields: Sequence[str]) -> dict[str, str]:
    """The values a NOC corrects, as the ChangeNotice keeps them: account numbers masked, never in full."""
    source = {
        Corrected.ROUTING.value: method.routing_number if method else txn.routing_number,
        Corrected.ACCOUNT.value: mask(method.last_four if method else txn.account_last_four),
        Corrected.ACCOUNT_TYPE.value: method.account_type if method else txn.account_type,
        Corrected.NAME.value: txn.name,
    }
    return {name: source[name] for name in fields}


def _apply_notice(item: nacha.ReturnedItem, txn: Transaction, chunk: _Chunk) -> bool:
    if txn.pk in chunk.noticed:
        return False
    chunk.noticed.add(txn.pk)
    code = CHANGE_CODES[item.code]
    corrected = {name.value: item.corrected[name.value] for name in code.corrects if name.value in item.corrected}
    method = chunk.methods.get(txn.payment_method_id)
    old_value = _method_values(method, txn, list(corrected))
    new_value = {
        name: mask(value[-4:]) if name == Corrected.ACCOUNT.value else value for name, value in corrected.items()
    }
    chunk.new_notices.append(
        ChangeNotice(
            company_id=txn.company_id,
            transaction=txn,
            change_code=item.code,
            change_reason=code.reason,
            changed_at=chunk.at,
            noc_received_at=chunk.at,
            old_value=old_value,
            new_value=new_value,
            corrected_account_number=corrected.get(Corrected.ACCOUNT.value),
            ingestion_file=chunk.ingestion,
        )
    )
    if method is not None and Corrected.NAME.value in corrected:
        # C04: later charges of the method go out in the corrected name, and so do its entries not yet in a file.
        chunk.corrections.name(method, corrected[Corrected.NAME.value])
        chunk.corrected_names[method.pk] = corrected[Corrected.NAME.value]
    elif method is not None and corrected:
        _correct_method(method, corrected, chunk.corrections)
    return True


def _correct_method(method: PaymentMethod, corrected: dict[str, str], corrections: MethodCorrections) -> None:
    """Another account number, routing number or account type."""
    applied = corrections.account(
        method,
        routing_number=corrected.get(Corrected.ROUTING.value),
        account_number=corrected.get(Corrected.ACCOUNT.value),
        account_type=corrected.get(Corrected.ACCOUNT_TYPE.value),
    )
    if not applied:
        # The customer already saved the corrected account: that method is the one to charge now.
        logger.warning("notice of change for method %s matches another saved method; method left as is", method.uuid)


def summary_of(ingestion: IngestionFile, parts: Sequence[dict]) -> dict:
    """The file's summary, from what its parts applied: counts added up, lists in file order."""
    listed = {
        name: [value for _position, value in sorted((item for part in parts for item in part[name]), key=_position)]
        for name in ("unmatched", "exceptions")
    }
    return {
        "ingestionFileUuid": str(ingestion.uuid),
        **{key: sum(part[key] for part in parts) for key in SUMMARY_COUNTS},
        **listed,
        "alreadyImported": False,  # True when the same file (by SHA-256) is imported again: nothing is applied
    }


def _position(item: list) -> int:
    return item[0]


def _chunks(items: Iterator[FileItem], size: int) -> Iterator[list[FileItem]]:
    while part := list(islice(items, size)):
        yield part


@dataclass
class _Group:
    """The items of one chunk of the file that one database transaction applies: those of the companies one process
    owns (None: the items that name no entry), in file order."""

    chunk: int
    company_ids: list[int | None] = field(default_factory=list)
    # (position, item, the entry it answers, or why none)
    entries: list[tuple[int, FileItem, matching.Match]] = field(default_factory=list)


@dataclass(frozen=True)
class _Source:
    """Where a chunk's items find their entries: the bank's file through the matcher (its date bounds the
    candidates), or a sandbox simulation naming each item's entry itself (`named`, in file order)."""

    file_date: date | None = None
    named: Sequence[int] | None = None

    def matches(self, number: int, part: list[FileItem], at: datetime) -> list[matching.Match]:
        if self.named is None:
            return matching.matches([entry.item for entry in part], at=at, file_date=self.file_date)
        named = self.named[number * LOCK_CHUNK : number * LOCK_CHUNK + len(part)]
        companies = dict(Transaction.objects.filter(ids_in(named)).values_list("pk", "company_id"))
        return [matching.Match(pk, companies[pk]) for pk in named]


def _groups(
    number: int,
    part: list[FileItem],
    done: set[int | None],
    at: datetime,
    processes: CompanyProcesses,
    source: _Source,
) -> dict[int, _Group]:
    """The chunk's items by company, each company's in the group of the process that owns it (a company new to the
    file goes to the process given the fewest items so far); the companies an earlier run applied (`done`) are
    left out. Process index -> its group."""
    by_company: dict[int | None, list[tuple[int, FileItem, matching.Match]]] = {}
    start = number * LOCK_CHUNK
    for position, (entry, match) in enumerate(zip(part, source.matches(number, part, at), strict=True), start):
        if match.company_id not in done:
            by_company.setdefault(match.company_id, []).append((position, entry, match))
    groups: dict[int, _Group] = {}
    for company_id, entries in sorted(by_company.items(), key=lambda pair: (-len(pair[1]), pair[0] or 0)):
        group = groups.setdefault(processes.owner(company_id, len(entries)), _Group(number))
        group.company_ids.append(company_id)
        group.entries.extend(entries)
    for group in groups.values():
        group.entries.sort(key=lambda entry: entry[0])
    return groups


def _group_apply(group: _Group, *, ingestion: IngestionFile, at: datetime, actor: Actor) -> None:
    with transaction.atomic():
        applied = _Applied()
        chunk = _Chunk.lock([match.pk for _position, _entry, match in group.entries], ingestion, at, actor, applied)
        for position, entry, match in group.entries:
            chunk.position, chunk.unmatched_reason = position, match.reason
            _apply(entry, chunk.transactions.get(match.pk), chunk)
        answers_apply(chunk)
        IngestionPart.objects.create(
            ingestion_file=ingestion, chunk=group.chunk, company_ids=group.company_ids, summary=applied.part()
        )


def _chunks_apply(
    chunks: Iterator[list[FileItem]],
    processes: CompanyProcesses,
    *,
    ingestion: IngestionFile,
    at: datetime,
    actor: Actor,
    source: _Source,
) -> None:
    """Each chunk's groups are given to the processes that own their companies, where they run after that company's
    earlier groups (so each company's items go in file order); the next chunks are read and matched meanwhile
    (matching reads no column the import writes)."""
    done: dict[int, set[int | None]] = {}
    for number, company_ids in ingestion.parts.values_list("chunk", "company_ids"):
        done.setdefault(number, set()).update(company_ids)
    apply = functools.partial(_group_apply, ingestion=ingestion, at=at, actor=actor)
    for number, part in enumerate(chunks):
        for index, group in _groups(number, part, done.get(number, set()), at, processes, source).items():
            processes.give(index, apply, group)
    processes.wait()


def _ingestion_begun(digest: str, filename: str, file_format: str, at: datetime) -> IngestionFile | None:
    """The file's record, being applied (a new one, or the one a run that stopped midway left); None when the file
    was imported whole before."""
    ingestion = IngestionFile.objects.filter(sha256=digest).first()
    if ingestion is None:
        return IngestionFile.objects.create(
            filename=filename[-500:], sha256=digest, file_format=file_format, received_at=at, applying=True
        )
    return ingestion if ingestion.applying else None


def _ingestion_finish(ingestion: IngestionFile, at: datetime, processes: CompanyProcesses) -> dict:
    """The return rate alerts of the companies the file touched, a share of them in each process (each company's
    rates are a scan of its entries of the last 60 days), then the file's summary. A large file refreshes the
    planner's statistics of what it changed first: planned on "no entry is Returned", the rates and the late settle
    that follows read the status index whole for each company (late settle of 100,000 at 1M entries: 9.9 -> 5.8 s,
    for 0.8 s of ANALYZE)."""
    parts = list(ingestion.parts.values_list("summary", flat=True))
    # Returns only: a notice changes no column the planner is asked about (a NOC file of 10,000 paid 0.8 s of
    # ANALYZE at 1M entries for nothing).
    returned = sum(part["returns"] for part in parts)
    statistics_refresh(Transaction, changed=returned)
    statistics_refresh(TransactionReturn, changed=returned)
    touched = sorted({company_id for part in parts for company_id in part["touched"]})
    shares = [touched[start :: processes.workers] for start in range(processes.workers)]
    processes.start([share for share in shares if share], functools.partial(_alerts_evaluate, at=at))()
    ingestion.summary, ingestion.applying = summary_of(ingestion, parts), False
    ingestion.save(update_fields=["summary", "applying"])
    return ingestion.summary


def _alerts_evaluate(company_ids: list[int], *, at: datetime) -> None:
    with transaction.atomic():
        return_rate_alerts_evaluate(company_ids=company_ids, at=at)


def _already_imported(digest: str) -> dict | None:
    existing = IngestionFile.objects.filter(sha256=digest, applying=False).first()
    return None if existing is None else {**existing.summary, "alreadyImported": True}


def returns_import(
    *,
    source: ReturnFileSource,
    filename: str,
    at: datetime,
    actor: Actor = IMPORT_RETURNS,
    progress: Progress = no_progress,
    workers: int | None = None,
    named: Sequence[int] | None = None,
) -> dict:
    """`named`: the entry each item of the file answers, in file order, for a sandbox simulation that wrote the file
    from its own entries (no matching); None for a bank's file, whose items are matched (transactions.ach.matching)."""
    workers = settings.IMPORT_RETURNS_WORKERS if workers is None else workers
    with source.private_copy(settings.IMPORT_RETURNS_MAX_BYTES) as (copy, digest):
        if (answer := _already_imported(digest)) is not None:
            return answer
        content_read = read_return_file(copy)
        # One run of a file at a time: another run of the same file waits, then answers its summary.
        with serialized(IMPORT_LOCK_NAMESPACE + int(digest[:7], 16)):
            ingestion = _ingestion_begun(digest, filename, content_read.file_format, at)
            if ingestion is None:
                return _already_imported(digest)
            chunks = progress(
                _chunks(content_read.read(), LOCK_CHUNK),
                desc="import",
                unit="chunk",
                total=-(-content_read.count // LOCK_CHUNK),
            )
            with CompanyProcesses(workers) as processes:
                source = _Source(file_date=content_read.file_date, named=named)
                _chunks_apply(chunks, processes, ingestion=ingestion, at=at, actor=actor, source=source)
                summary = _ingestion_finish(ingestion, at, processes)
    logger.info(
        "imported %s: %s returns, %s notices, %s dishonored, %s contested, %s unmatched, %s exceptions",
        ingestion.uuid,
        summary["returns"],
        summary["notices"],
        summary["dishonoredReturns"],
        summary["contestedReturns"],
        len(summary["unmatched"]),
        len(summary["exceptions"]),
    )
    return summary
