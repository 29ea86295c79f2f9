"""The expected payments the service makes itself (CONTRACT 19: never by hand), one function a source, listed in
SOURCES. Each returns drafts keyed by `source_key`, so that a run makes each expectation once however often it
runs. A new source of money at the bank (payouts and top-ups, once a `payouts/` app exists: its sent payouts as
debits, its top-ups as credits, referenced by the file and batch they went out in) is one function more in
SOURCES."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

from django.db.models import QuerySet

from reconciliation.models import Direction, ExpectedPayment
from transactions import calendar
from transactions.models import Batch, OriginationFile, TransactionReturn, TransactionType

# How far back a run looks for files and returns it has not yet expected: a deployment that starts reconciling
# expects from about a month before its first run, not the whole of its history.
LOOKBACK = timedelta(days=31)

Kind = ExpectedPayment.Kind


def settlement_day(effective_date: date) -> date:
    """The banking day an entry of that effective date settles (a weekend or holiday moves to the next)."""
    return calendar.next_business_day(effective_date)


def _files_to_expect(at: datetime) -> QuerySet[OriginationFile]:
    """Live files written and taken by the bank (or carried to it by hand), not yet expected."""
    expected = ExpectedPayment.objects.filter(kind=Kind.FILE_SETTLEMENT).values("origination_file_id")
    return (
        OriginationFile.objects.filter(
            is_sandbox=False, building=False, awaiting_bank=False, created_at__gte=at - LOOKBACK, created_at__lte=at
        )
        .exclude(sha256="")
        .exclude(pk__in=expected)
    )


def file_settlements(at: datetime) -> list[ExpectedPayment]:
    """Each file's settlement by day: its debits' total as a credit to our account, its credits' total as a
    debit, on the day its batches of that effective date settle. Referenced by the file's name on the bank's
    server (a bank posting per batch names `NAME:batch number`, the matcher's split rule adds them up)."""
    files = {file.pk: file for file in _files_to_expect(at)}
    totals: dict[tuple[int, date, str], int] = defaultdict(int)
    batches = Batch.objects.filter(origination_file_id__in=files).values_list(
        "origination_file_id", "effective_date", "debit_total", "credit_total"
    )
    for file_id, effective_date, debit_total, credit_total in batches:
        day = settlement_day(effective_date)
        totals[(file_id, day, Direction.CREDIT)] += debit_total
        totals[(file_id, day, Direction.DEBIT)] += credit_total
    drafts = []
    for (file_id, day, direction), amount in sorted(totals.items()):
        if amount <= 0:
            continue
        file = files[file_id]
        name = Path(file.path).name
        drafts.append(
            ExpectedPayment(
                source_key=f"file:{file.uuid}:{day.isoformat()}:{direction}",
                kind=Kind.FILE_SETTLEMENT,
                direction=direction,
                amount=amount,
                expected_on=day,
                reference=name[:64],
                group=name[:120],
                origination_file=file,
                created_at=at,
            )
        )
    return drafts


def return_items(at: datetime) -> list[ExpectedPayment]:
    """Each returned entry of a live file, from the return file it came in: a returned debit takes its amount
    back out of our account, a returned credit brings it back in. Referenced by the entry's trace number, and
    grouped by the return file (a bank may post a file's items as one line). Expected on the later of the day
    the return came and the day the entry settled."""
    expected = ExpectedPayment.objects.filter(kind=Kind.RETURN_ITEM).values("transaction_return_uuid")
    returns = (
        TransactionReturn.objects.filter(
            ingestion_file__isnull=False,
            transaction__batch__origination_file__is_sandbox=False,
            returned_at__gte=at - LOOKBACK,
            returned_at__lte=at,
        )
        .exclude(uuid__in=expected)
        .values_list(
            "uuid",
            "returned_at",
            "ingestion_file_id",
            "ingestion_file__filename",
            "transaction__amount",
            "transaction__type",
            "transaction__trace_number",
            "transaction__batch__effective_date",
        )
    )
    drafts = []
    for uuid, returned_at, file_id, filename, amount, kind, trace, effective_date in returns:
        if not amount:
            continue  # a prenote moves no money
        came = calendar.eastern_now(returned_at).date()
        drafts.append(
            ExpectedPayment(
                source_key=f"return:{uuid}",
                kind=Kind.RETURN_ITEM,
                direction=Direction.DEBIT if kind == TransactionType.DEBIT else Direction.CREDIT,
                amount=amount,
                expected_on=calendar.next_business_day(max(came, settlement_day(effective_date))),
                reference=trace,
                group=Path(filename).name[:120],
                ingestion_file_id=file_id,
                transaction_return_uuid=uuid,
                created_at=at,
            )
        )
    return drafts


SOURCES: tuple[Callable[[datetime], list[ExpectedPayment]], ...] = (file_settlements, return_items)


def expectations_make(*, at: datetime) -> int:
    """Every source's new expectations, written once (a second run, or two at once, makes none twice)."""
    drafts = [draft for source in SOURCES for draft in source(at)]
    made = ExpectedPayment.objects.bulk_create(drafts, batch_size=1000, ignore_conflicts=True)
    return len(made)
