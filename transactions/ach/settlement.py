"""`settle`: Processing transactions whose settlement time has passed, authorised card charges (captured
here) and late returns are gathered into Settlements per company and day.

Each company-day group is its own database transaction; rows are locked with skip_locked and guarded
by their status, so a crash or a concurrent run leaves nothing half-settled and a rerun settles only
what is left."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F, Q

from transactions import calendar
from transactions.ach.finality import windows_stamp
from transactions.methods import CAPTURED_BY_SETTLE_METHODS
from transactions.models import (
    AWAITING_LATE_SETTLEMENT,
    NOT_SEEDED,
    Batch,
    OriginationFile,
    Settlement,
    Status,
    Transaction,
)
from transactions.risk.account_validation import validations_settle
from transactions.rules import signed_amount
from transactions.state import Actor, Event, locked_transition, rows_lock_checked
from vault.commands import Progress, no_progress
from vault.db import ids_in, statistics_refresh
from vault.threads import per_company

SETTLE = Actor.command("settle")


@dataclass
class SettleResult:
    settlements: set[int] = field(default_factory=set)
    late_return_settlements: set[int] = field(default_factory=set)
    transactions: int = 0
    unwritten_batches: list[dict] = field(default_factory=list)
    files_awaiting_bank: list[dict] = field(default_factory=list)
    account_validations: dict[str, int] = field(default_factory=dict)

    def add(self, other: SettleResult) -> None:
        self.settlements |= other.settlements
        self.late_return_settlements |= other.late_return_settlements
        self.transactions += other.transactions

    def as_json(self) -> dict:
        return {
            "settlements": len(self.settlements),
            "transactions": self.transactions,
            "lateReturnSettlements": len(self.late_return_settlements),
            "unwrittenBatches": self.unwritten_batches,
            "filesAwaitingBank": self.files_awaiting_bank,
            "accountValidations": self.account_validations,
        }


def _day(moment: datetime) -> date:
    return calendar.eastern_now(moment).date()


# A settlement's entries are moved this many at a time (each piece its own database transaction, adding to the
# settlement's count and net): memory stays flat whatever the day's volume.
SETTLE_CHUNK = 20_000


def _settlements_due(guard: Q, *, moment: str | None, at: datetime) -> list[tuple[int, date, Q]]:
    """(company, settlement day, the filter of its rows) of each settlement the rows of `guard` make, read without
    loading the rows: `moment` is the column whose Eastern day is the settlement day (None: the day of `at`)."""
    if moment is None:
        companies = Transaction.objects.filter(guard).values_list("company_id", flat=True).distinct()
        return [(company_id, _day(at), Q(company_id=company_id)) for company_id in sorted(companies)]
    moments: dict[tuple[int, date], list[datetime]] = {}
    for company_id, value in Transaction.objects.filter(guard).values_list("company_id", moment).distinct():
        moments.setdefault((company_id, _day(value)), []).append(value)
    return [
        (company_id, day, Q(company_id=company_id, **{f"{moment}__in": values}))
        for (company_id, day), values in sorted(moments.items())
    ]


def _id_chunks(guard: Q) -> Iterator[list[int]]:
    """The ids of the rows of `guard`, SETTLE_CHUNK at a time in id order (each read after the last is settled)."""
    ids = Transaction.objects.filter(guard).order_by("pk").values_list("pk", flat=True)
    last = 0
    while chunk := list(ids.filter(pk__gt=last)[:SETTLE_CHUNK]):
        yield chunk
        last = chunk[-1]


@transaction.atomic
def _settle_group(
    *, company_id: int, day: date, ids: list[int], kind: str, at: datetime, guard: Q, changes: dict, actor: Actor
) -> tuple[Settlement | None, int]:
    # Locked once, with what the move checks and what the settlement adds up (pk, company, status, method, type).
    locked = rows_lock_checked(Transaction.objects.filter(guard, ids_in(ids)), skip_locked=True, read=("amount",))
    if not locked:
        return None, 0
    settlement, _created = Settlement.objects.get_or_create(
        company_id=company_id, kind=kind, settlement_date=day, defaults={"processed_at": at}
    )
    late = kind == Settlement.Kind.LATE_RETURN
    net = sum(
        -signed_amount(txn_type, amount) if late else signed_amount(txn_type, amount)
        for _pk, _company, _status, _method, txn_type, amount in locked
    )
    if late:
        # Money back from a settled debit: the status stays Returned, the row joins the late-return settlement.
        Transaction.objects.filter(ids_in([values[0] for values in locked])).update(late_return_settlement=settlement)
    else:
        # The windows first, so the settled event carries them (CONTRACT 15).
        windows_stamp(Transaction.objects.filter(ids_in([values[0] for values in locked])))
        locked_transition(locked, Event.SETTLED, actor=actor, at=at, changes={"settlement": settlement, **changes})
    Settlement.objects.filter(pk=settlement.pk).update(
        transaction_count=F("transaction_count") + len(locked), net_amount=F("net_amount") + net
    )
    return settlement, len(locked)


# Only what the bank took settles: the batch's NACHA file is on disk, its path and SHA-256 recorded, and the bank
# connection does not hold it back (not yet accepted by the bank's acknowledgement: bank.state).
SENT = (
    Q(batch__origination_file__sha256__gt="")
    & Q(batch__origination_file__path__gt="")
    & Q(batch__origination_file__awaiting_bank=False)
)


def unwritten_batches() -> list[dict]:
    """Exceptions: batches holding Processing transactions whose NACHA file was never written. They do not
    settle; the next `originate` writes their file."""
    batches = (
        Batch.objects.filter(origination_file__sha256="", transactions__status=Status.PROCESSING)
        .annotate(processing=Count("transactions"))
        .select_related("origination_file")
        .order_by("id")
    )
    return [
        {
            "batchUuid": str(batch.uuid),
            "batchNumericId": batch.pk,
            "originationFileUuid": str(batch.origination_file.uuid),
            "effectiveDate": batch.effective_date.isoformat(),
            "transactions": batch.processing,
        }
        for batch in batches
    ]


def files_awaiting_bank(*, at: datetime) -> list[dict]:
    """Exceptions: written files the bank has not accepted (CONTRACT 16) whose Processing entries are due, with the
    bank file's status. They do not settle until the bank's acknowledgement accepts the file, or, for a rejected
    one, the file sent again from the admin (bank files in the admin say which)."""
    files = (
        OriginationFile.objects.filter(
            awaiting_bank=True,
            batches__transactions__status=Status.PROCESSING,
            batches__transactions__expected_to_settle_at__lte=at,
        )
        .exclude(sha256="")
        .annotate(due=Count("batches__transactions"), bank_status=F("bank_file__status"))
        .order_by("id")
    )
    return [
        {
            "originationFileUuid": str(found.uuid),
            "path": found.path,
            "bankFileStatus": found.bank_status or "pending",  # no bank record until transmit_files makes it
            "transactions": found.due,
        }
        for found in files
    ]


def _settle_company(items: list[tuple], *, at: datetime, actor: Actor, result: SettleResult) -> None:
    """One company's settlements (regular, card captures, late returns), one after another."""
    for company_id, day, rows, kind, guard, sent, changes in items:
        for ids in _id_chunks(guard & sent & rows):
            settlement, count = _settle_group(
                company_id=company_id, day=day, ids=ids, kind=kind, at=at, guard=guard, changes=changes, actor=actor
            )
            if settlement is None:
                continue
            if kind == Settlement.Kind.LATE_RETURN:
                result.late_return_settlements.add(settlement.pk)
            else:
                result.settlements.add(settlement.pk)
                result.transactions += count


def _settle_companies(
    work: list[tuple], *, workers: int, at: datetime, actor: Actor, result: SettleResult, progress: Progress
) -> None:
    """Each company's work, on PostgreSQL `workers` companies at once: companies share no row, so their groups
    never wait on each other, and a company stays on one thread, so its settlements are made one at a time. Each
    group is still its own database transaction."""
    by_company: dict[int, list[tuple]] = {}
    for item in work:
        by_company.setdefault(item[0], []).append(item)

    def settle_one(items: list[tuple]) -> SettleResult:
        part = SettleResult()
        _settle_company(items, at=at, actor=actor, result=part)
        return part

    for part in per_company(list(by_company.values()), settle_one, workers=workers, progress=progress, desc="settle"):
        result.add(part)


def transactions_settle(
    *,
    at: datetime,
    actor: Actor = SETTLE,
    progress: Progress = no_progress,
    company_ids: Sequence[int] | None = None,
    workers: int | None = None,
) -> SettleResult:
    """`company_ids`: settle only those companies (a sandbox clock runs ahead of the real one for its company).
    `workers`: how many companies settle at once on PostgreSQL (settings.SETTLE_WORKERS when None)."""
    workers = settings.SETTLE_WORKERS if workers is None else workers
    result = SettleResult(
        unwritten_batches=unwritten_batches(),
        files_awaiting_bank=files_awaiting_bank(at=at) if company_ids is None else [],
    )
    only = NOT_SEEDED & Q(company_id__in=company_ids) if company_ids is not None else NOT_SEEDED
    due = Q(status=Status.PROCESSING, expected_to_settle_at__lte=at, settlement__isnull=True) & only
    card = only & Q(
        status=Status.PENDING,
        method__in=CAPTURED_BY_SETTLE_METHODS,
        authorized_at__isnull=False,
        captured_at__isnull=True,
        settlement__isnull=True,
    )
    late = only & AWAITING_LATE_SETTLEMENT
    # Each kind of row settling: the filter of its own columns (re-checked under the lock), what else must hold
    # when the rows are found (a written file stays written, so it is not re-checked: the lock then reads its rows
    # by id instead of walking every batch's entries), the column whose day is its settlement day (None: today),
    # its settlement's kind and what else the move sets.
    kinds = (
        (due, SENT, "expected_to_settle_at", Settlement.Kind.REGULAR, {}),
        (card, Q(), None, Settlement.Kind.REGULAR, {"captured_at": at}),
        (late, Q(), None, Settlement.Kind.LATE_RETURN, {}),
    )
    work = [
        (company_id, day, rows, kind, guard, sent, changes)
        for guard, sent, moment, kind, changes in kinds
        for company_id, day, rows in _settlements_due(guard & sent, moment=moment, at=at)
    ]
    _settle_companies(work, workers=workers, at=at, actor=actor, result=result, progress=progress)
    statistics_refresh(Transaction, changed=result.transactions)
    # After the settlements: a prenote settled in this run may already be 3 banking days old (a late run).
    result.account_validations = validations_settle(at=at, actor=actor, company_ids=company_ids)
    return result
