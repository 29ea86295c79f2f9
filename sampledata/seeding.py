"""Realistic reporting data for one company: transactions with batches, settlements, returns (real R codes),
notices of change, holds, exceptions, card data and late returns. In sets on PostgreSQL (sampledata.seeding_sql draws
the same tables of weights, sampledata.tables, in SQL), row by row with bulk_create elsewhere. The two forms write
the same kinds of rows: tests/sampledata/test_seed_forms.py runs both on PostgreSQL and compares them.

Account numbers stay encrypted at rest: a pool of distinct numbers is encrypted once and its ciphertexts reused,
so a million rows cost a few thousand Fernet operations."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.db import connections, transaction

from accounts.models import Company
from reporting.models import PayerName, TransactionCount
from sampledata.seeding_sql import seed_in_sets
from sampledata.tables import (
    CATEGORIES,
    COMPANIES,
    FIRST,
    LAST,
    METHODS,
    RETURN_CODE_WEIGHTS,
    ROUTING,
    SAMPLE_CHANGE_CODES,
    STATUSES,
    TRANSACTION_COLUMNS,
)
from transactions.methods import method_kind
from transactions.models import (
    Batch,
    ChangeNotice,
    IngestionFile,
    Settlement,
    Transaction,
    TransactionException,
    TransactionHold,
    TransactionReturn,
)
from transactions.return_codes import CHANGE_CODES, RETURN_CODES
from transactions.rules import DEFAULT_ENTRY_DESCRIPTION
from vault import crypto
from vault.maintenance import vacuum_analyze
from vault.records import mask

ACCOUNT_POOL_SIZE = 3000
CHUNK = 20_000


@dataclass
class SeedResult:
    created: int
    total: int
    returns: int
    notices: int
    holds: int
    exceptions: int
    late_returns: int
    vacuumed: bool = False


def _weighted(rng: random.Random, table: tuple) -> Callable[[], Any]:
    values = [row[0] for row in table]
    weights = [row[-1] for row in table]
    cum = []
    acc = 0
    for weight in weights:
        acc += weight
        cum.append(acc)
    return lambda: rng.choices(values, cum_weights=cum)[0] if len(values) > 1 else values[0]


def _account_pool(rng: random.Random, size: int, encrypt: bool) -> list[tuple[str, str, str]]:
    """(stored account number, keyed hash, last four): ciphertext for COPY, plain for the ORM (it encrypts)."""
    pool = []
    for _ in range(size):
        number = str(rng.randrange(10**7, 10**12))
        pool.append((crypto.encrypt(number) if encrypt else number, crypto.account_number_hash(number), number[-4:]))
    return pool


class _Ids:
    """Reserves id ranges from each table's sequence (PostgreSQL) or after its max id (SQLite)."""

    def __init__(self, alias: str) -> None:
        self.connection = connections[alias]

    def reserve(self, model: type, count: int) -> int:
        table = model._meta.db_table
        with self.connection.cursor() as cursor:
            if self.connection.vendor == "postgresql":
                cursor.execute(f"LOCK TABLE {table} IN EXCLUSIVE MODE")
                cursor.execute("SELECT pg_get_serial_sequence(%s, 'id')", [table])
                sequence = cursor.fetchone()[0]
                cursor.execute(f"SELECT GREATEST(COALESCE(MAX(id), 0), 0) FROM {table}")  # noqa: S608
                start = cursor.fetchone()[0] + 1
                cursor.execute("SELECT setval(%s, %s)", [sequence, start + max(count, 1) - 1])
                return start
            cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {table}")  # noqa: S608
            return cursor.fetchone()[0] + 1


class _Writer:
    def __init__(self, alias: str) -> None:
        self.alias = alias
        self.connection = connections[alias]
        self.copy = self.connection.vendor == "postgresql"

    def write(self, model: type, columns: tuple[str, ...], rows: list[tuple]) -> None:
        if not rows:
            return
        if self.copy:
            table = model._meta.db_table
            with self.connection.cursor() as cursor:
                with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            return
        model.objects.using(self.alias).bulk_create(
            [model(**dict(zip(columns, row, strict=True))) for row in rows], batch_size=500
        )


def seed_transactions(
    *,
    company: Company,
    count: int,
    seed: int = 1,
    alias: str = "default",
    progress: Callable[[int], None] | None = None,
    vacuum: bool = True,
) -> SeedResult:
    """Adds transactions until `company` has at least `count` (rerunning with the same count adds nothing), then
    VACUUM (ANALYZE)s the tables it filled on PostgreSQL unless `vacuum` is False (a caller seeding in steps
    vacuums once at the end)."""
    existing = Transaction.objects.using(alias).filter(company_id=company.pk).count()
    to_create = max(count - existing, 0)
    rng = random.Random(f"{seed}:{company.pk}:{existing}")  # noqa: S311 (fake data, reproducible on purpose)
    writer = _Writer(alias)
    ids = _Ids(alias)
    counts = {"returns": 0, "notices": 0, "holds": 0, "exceptions": 0, "late_returns": 0}
    if to_create == 0:
        return SeedResult(0, existing, **counts)

    with transaction.atomic(using=alias):
        now = datetime.now(UTC).replace(microsecond=0)
        days = 365
        start_day = (now - timedelta(days=days)).date()
        pool = _account_pool(rng, min(ACCOUNT_POOL_SIZE, to_create), encrypt=writer.copy)
        files = _write_ingestion_files(writer, ids, start_day, days)
        parents = _Parents(company, ids, days, alias)
        txn_start = ids.reserve(Transaction, to_create)
        if writer.copy:
            written = seed_in_sets(
                company_id=company.pk, count=to_create, txn_start=txn_start, now=now, days=days, pool=pool,
                files=files, batch_start=parents.batch_start, settlement_ids=parents.settlement_ids.__next__,
                existing_settlements=parents.existing_settlements, counts=counts, progress=progress, alias=alias,
                seed=seed,
            )  # fmt: skip
        else:
            sub_start = {
                model: ids.reserve(model, to_create)
                for model in (TransactionReturn, ChangeNotice, TransactionHold, TransactionException)
            }
            rows = _transaction_rows(
                rng=rng, company=company, count=to_create, txn_start=txn_start, now=now, days=days, pool=pool,
                files=files, batch_for=parents.batch_for, settlement_for=parents.settlement_for,
                sub_start=sub_start, counts=counts, raw_json=writer.copy,
            )  # fmt: skip
            written = _write_in_chunks(writer, rows, parents, progress)
        if writer.copy:
            _advance_sequences(writer)
    vacuumed = vacuum and vacuum_analyze(FILLED_TABLES, using=alias)
    return SeedResult(written, existing + written, **counts, vacuumed=vacuumed)


def _write_ingestion_files(writer: _Writer, ids: _Ids, start_day: date, days: int) -> list[int]:
    """One return file a week over the seeded year; returns their ids."""
    files = [(uuid.uuid4(), start_day + timedelta(days=d)) for d in range(0, days + 1, 7)]
    file_start = ids.reserve(IngestionFile, len(files))
    writer.write(
        IngestionFile,
        ("id", "uuid", "filename", "sha256", "file_format", "received_at", "summary"),
        [
            (file_start + i, u, f"returns-{d.isoformat()}.ach", hashlib.sha256(u.bytes).hexdigest(), "nacha",
             datetime(d.year, d.month, d.day, 14, tzinfo=UTC),
             json.dumps({"seeded": True}) if writer.copy else {"seeded": True})
            for i, (u, d) in enumerate(files)
        ],
    )  # fmt: skip
    return [file_start + i for i in range(len(files))]


class _Parents:
    """The batches and settlements the transactions refer to, made on first use (one per day and kind) and
    written before the chunk that refers to them; settlements the company already has are reused."""

    def __init__(self, company: Company, ids: _Ids, days: int, alias: str) -> None:
        self.company = company
        self.day_batches: dict[date, int] = {}
        self.day_settlements: dict[tuple[str, date], int] = {}
        self.batch_rows: list[tuple] = []
        self.settlement_rows: list[tuple] = []
        self.pending_batches = 0
        self.existing_settlements = {
            (kind, day): pk
            for pk, kind, day in Settlement.objects.using(alias)
            .filter(company_id=company.pk)
            .values_list("id", "kind", "settlement_date")
        }
        self.batch_start = ids.reserve(Batch, days + 10)  # a batch id for each effective day (seeding_sql)
        self.settlement_ids = itertools.count(ids.reserve(Settlement, 2 * (days + 10)))

    def batch_for(self, day: date) -> int:
        if day not in self.day_batches:
            pk = self.batch_start + len(self.batch_rows)
            self.day_batches[day] = pk
            self.batch_rows.append(
                (pk, uuid.uuid4(), "WEB", day, datetime(day.year, day.month, day.day, 21, tzinfo=UTC),
                 1, 0, 0, 0, self.company.pk, None, DEFAULT_ENTRY_DESCRIPTION)
            )  # fmt: skip
        return self.day_batches[day]

    def settlement_for(self, kind: str, day: date) -> int:
        key = (kind, day)
        if key in self.existing_settlements:
            return self.existing_settlements[key]
        if key not in self.day_settlements:
            pk = next(self.settlement_ids)
            self.day_settlements[key] = pk
            self.settlement_rows.append(
                (pk, uuid.uuid4(), kind, day, datetime(day.year, day.month, day.day, 23, tzinfo=UTC), 0, 0,
                 self.company.pk)
            )  # fmt: skip
        return self.day_settlements[key]

    def write_new(self, writer: _Writer) -> None:
        """Writes the batches and settlements made since the last call."""
        writer.write(Batch, _BATCH_COLUMNS, self.batch_rows[self.pending_batches :])
        self.pending_batches = len(self.batch_rows)
        writer.write(Settlement, _SETTLEMENT_COLUMNS, self.settlement_rows)
        self.existing_settlements.update(self.day_settlements)
        self.day_settlements.clear()
        self.settlement_rows.clear()


def _write_in_chunks(writer: _Writer, rows: Iterator, parents: _Parents, progress: Callable[[int], None] | None) -> int:
    """Writes the transactions and their returns, notices, holds and exceptions CHUNK at a time, parents first:
    the batches and settlements a chunk refers to, then the chunk, then its children. Returns how many."""
    subs: dict[type, list[tuple]] = {TransactionReturn: [], ChangeNotice: [], TransactionHold: [],
                                     TransactionException: []}  # fmt: skip
    chunk: list[tuple] = []
    written = 0
    for txn_row, extra in rows:
        chunk.append(txn_row)
        for model, row in extra:
            subs[model].append(row)
        if len(chunk) >= CHUNK:
            _write_chunk(writer, parents, chunk, subs)
            written += len(chunk)
            if progress:
                progress(len(chunk))
            chunk = []
    _write_chunk(writer, parents, chunk, subs)
    if progress:
        progress(len(chunk))
    return written + len(chunk)


def _write_chunk(writer: _Writer, parents: _Parents, chunk: list[tuple], subs: dict[type, list[tuple]]) -> None:
    parents.write_new(writer)
    writer.write(Transaction, TRANSACTION_COLUMNS, chunk)
    for model, sub_rows in subs.items():
        writer.write(model, _SUB_COLUMNS[model], sub_rows)
        sub_rows.clear()


def _advance_sequences(writer: _Writer) -> None:
    """COPY wrote explicit ids: each table's sequence moves past them."""
    with writer.connection.cursor() as cursor:
        for model in (Transaction, TransactionReturn, ChangeNotice, TransactionHold, TransactionException,
                      Batch, Settlement, IngestionFile):  # fmt: skip
            table = model._meta.db_table
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, 'id'), (SELECT COALESCE(MAX(id), 1) FROM {table}))",  # noqa: S608
                [table],
            )


# Every table a seed writes, the trigger-kept ones included.
FILLED_TABLES = (Transaction, TransactionReturn, ChangeNotice, TransactionHold, TransactionException, Batch,
                 Settlement, IngestionFile, PayerName, TransactionCount)  # fmt: skip

_BATCH_COLUMNS = ("id", "uuid", "standard_entry_class_code", "effective_date", "batched_at", "batch_number",
                  "entry_count", "debit_total", "credit_total", "company_id", "origination_file_id",
                  "entry_description")  # fmt: skip
_SETTLEMENT_COLUMNS = ("id", "uuid", "kind", "settlement_date", "processed_at", "transaction_count", "net_amount",
                       "company_id")  # fmt: skip
_SUB_COLUMNS: dict[type, tuple[str, ...]] = {
    TransactionReturn: ("id", "uuid", "return_code", "return_reason", "returned_at", "company_id",
                        "ingestion_file_id", "transaction_id"),
    ChangeNotice: ("id", "uuid", "change_code", "change_reason", "changed_at", "noc_received_at", "old_value",
                   "new_value", "company_id", "ingestion_file_id", "transaction_id"),
    TransactionHold: ("id", "hold_code", "hold_reason", "held_at", "released_at", "company_id", "transaction_id"),
    TransactionException: ("id", "reject_reason", "rejected_at", "restored_at", "acknowledged_at", "company_id",
                           "transaction_id"),
}  # fmt: skip


def _transaction_rows(
    *, rng: random.Random, company: Company, count: int, txn_start: int, now: datetime, days: int, pool: list,
    files: list[int], batch_for: Callable, settlement_for: Callable, sub_start: dict, counts: dict, raw_json: bool,
) -> Iterator[tuple[tuple, list[tuple[type, tuple]]]]:  # fmt: skip
    """Each transaction row with its return, notice, hold and exception rows. The random draws come in a fixed
    order, so a seed always makes the same data."""
    pick_status = _weighted(rng, STATUSES)
    pick_method = _weighted(rng, METHODS)
    children = _ChildRows(rng, company, now, days, files, sub_start, counts, raw_json)
    span = days * 86400
    rand = rng.random
    choice = rng.choice
    for n in range(count):
        pk = txn_start + n
        created = now - timedelta(seconds=span * (1 - (n + rand()) / count))
        method = pick_method()
        status = pick_status()
        paid_by = method_kind(method)
        card = paid_by.pays_by_card
        if card and status in ("Returned",):
            status = "Settled"
        kind = "Credit" if rand() < 0.12 else "Debit"
        amount = max(100, int(rng.lognormvariate(8.5, 1.3)))
        if status == "HELD":
            amount = max(amount, 1_000_001)
        effective = created.date() + timedelta(days=1 + (created.weekday() >= 4) * 2)
        if (
            not card
            and effective > now.date()
            and status in ("Settled", "Returned", "Reversed", "Rejected", "Processing")
        ):
            status = "Pending"  # not yet due: nothing can have happened to it
        name = f"{choice(FIRST)} {choice(LAST)}" if rand() < 0.8 else choice(COMPANIES)
        batched = (not card) and status not in ("Pending", "DECLINED", "HELD") and effective <= now.date()
        settled = batched and status in ("Settled", "Returned", "Reversed") and effective < now.date()
        account, routing, card_cols = _payment_columns(rng, pool, card, created, status)
        batch_id = batch_for(effective) if batched else None
        settlement_id = settlement_for("regular", effective + timedelta(days=1)) if settled else None
        children.start(pk)
        late = children.add_return(status, card, effective, created, settlement_for)
        children.add_notice(batched and paid_by.in_nacha_file, created, routing, account)
        children.add_hold(status, amount, created)
        children.add_exception(status, created)
        yield _transaction_row(
            rng, pk=pk, company=company, method=method, kind=kind, amount=amount, status=status,
            effective=effective, created=created, name=name, card=card, account=account, routing=routing,
            card_cols=card_cols, batched=batched, late=late, batch_id=batch_id, settlement_id=settlement_id,
        ), children.rows  # fmt: skip


def _payment_columns(
    rng: random.Random, pool: list, card: bool, created: datetime, status: str
) -> tuple[tuple[str, str, str], str, tuple]:
    """(account number, keyed hash, last four), routing number and the card columns: a card or a bank account."""
    if not card:
        return rng.choice(pool), rng.choice(ROUTING), ("", "", "", "", None, "", None)
    choice, randrange = rng.choice, rng.randrange
    first_six = choice(("411111", "555555", "378282", "601111"))
    last = f"{randrange(10000):04d}"
    authorized = created
    card_cols = (first_six, last, f"{first_six}******{last}", f"{randrange(1, 13):02d}/{randrange(27, 32)}",
                 authorized, "00" if status != "DECLINED" else "05",
                 authorized + timedelta(hours=2) if status == "Settled" else None)  # fmt: skip
    return ("", "", ""), "", card_cols


@dataclass(frozen=True)
class _LateReturn:
    """What a return puts on its transaction: when it came late (with its settlement) and from which file."""

    late_at: datetime | None = None
    late_settlement: int | None = None
    ingestion_file: int | None = None


class _ChildRows:
    """The return, notice of change, hold and exception rows of one transaction at a time, with their ids."""

    def __init__(self, rng: random.Random, company: Company, now: datetime, days: int, files: list[int],
                 sub_start: dict, counts: dict, raw_json: bool) -> None:  # fmt: skip
        self.rng, self.company, self.now, self.days, self.files = rng, company, now, days, files
        self.counts = counts
        self.is_json = not raw_json
        self.sub_ids = {model: start for model, start in sub_start.items()}
        self.pick_return = _weighted(rng, tuple((code, code, w) for code, w in RETURN_CODE_WEIGHTS))
        self.reasons = {code: RETURN_CODES[code].reason for code, _ in RETURN_CODE_WEIGHTS}
        self.pk = 0
        self.rows: list[tuple[type, tuple]] = []

    def start(self, pk: int) -> None:
        self.pk = pk
        self.rows = []

    def _add(self, model: type, *columns: Any) -> None:
        self.rows.append((model, (self.sub_ids[model], *columns, self.pk)))
        self.sub_ids[model] += 1

    def add_return(self, status: str, card: bool, effective: date, created: datetime, settlement_for: Callable):
        if status != "Returned" or card:
            return _LateReturn()
        rng, now = self.rng, self.now
        late_at = late_settlement = None
        returned_at = datetime.combine(effective + timedelta(days=rng.randrange(1, 3)), created.timetz()).replace(
            tzinfo=UTC
        )
        if rng.random() < 0.15:  # arrived after settlement: a late return with its own settlement
            late_at = returned_at + timedelta(days=rng.randrange(3, 50))
            returned_at = late_at
            late_settlement = settlement_for("late_return", min(late_at.date(), now.date()))
            self.counts["late_returns"] += 1
        code = self.pick_return()
        ingestion_file = self.files[min(max((returned_at.date() - (now.date() - timedelta(days=self.days))).days
                                            // 7, 0), len(self.files) - 1)]  # fmt: skip
        self._add(TransactionReturn, uuid.uuid4(), code, self.reasons[code], returned_at, self.company.pk,
                  ingestion_file)  # fmt: skip
        self.counts["returns"] += 1
        return _LateReturn(late_at, late_settlement, ingestion_file)

    def add_notice(self, sent_in_file: bool, created: datetime, routing: str, account: tuple) -> None:
        rng = self.rng
        if not (sent_in_file and rng.random() < 0.012):
            return
        code, key = rng.choice(SAMPLE_CHANGE_CODES)
        reason = CHANGE_CODES[code].reason
        changed = created + timedelta(days=rng.randrange(2, 6))
        old, new = {key: "old"}, {key: "new"}
        if key == "routingNumber":
            old, new = {key: routing}, {key: rng.choice(ROUTING)}
        elif key == "accountNumber":
            old, new = {key: mask(account[2])}, {key: mask(f"{rng.randrange(10000):04d}")}
        elif key == "accountType":
            old, new = {key: "Checking"}, {key: "Savings"}
        if not self.is_json:
            old, new = json.dumps(old), json.dumps(new)
        self._add(ChangeNotice, uuid.uuid4(), code, reason, changed, changed + timedelta(hours=3), old, new,
                  self.company.pk, self.files[0])  # fmt: skip
        self.counts["notices"] += 1

    def add_hold(self, status: str, amount: int, created: datetime) -> None:
        if not (status == "HELD" or (self.rng.random() < 0.01 and amount > 100_000)):
            return
        released = None if status == "HELD" else created + timedelta(hours=self.rng.randrange(1, 48))
        self._add(TransactionHold, "AMT", "Amount over the company hold limit", created, released, self.company.pk)
        self.counts["holds"] += 1

    def add_exception(self, status: str, created: datetime) -> None:
        if status != "Rejected":
            return
        rng = self.rng
        restored = created + timedelta(days=1) if rng.random() < 0.2 else None
        acknowledged = created + timedelta(hours=5) if rng.random() < 0.5 else None
        self._add(TransactionException, rng.choice(("Invalid account", "Risk review failed", "Duplicate entry")),
                  created + timedelta(hours=1), restored, acknowledged, self.company.pk)  # fmt: skip
        self.counts["exceptions"] += 1


def _transaction_row(
    rng: random.Random, *, pk: int, company: Company, method: str, kind: str, amount: int, status: str,
    effective: date, created: datetime, name: str, card: bool, account: tuple, routing: str, card_cols: tuple,
    batched: bool, late: _LateReturn, batch_id: int | None, settlement_id: int | None,
) -> tuple:  # fmt: skip
    """The transaction's columns in TRANSACTION_COLUMNS order (the remaining random draws in that order too)."""
    rand, choice = rng.random, rng.choice
    paid_by = method_kind(method)
    category = choice(CATEGORIES) if rand() < 0.3 else ""
    return (
        pk, uuid.uuid4(), uuid.uuid4(), f"H{pk}" if rand() < 0.1 else "", method, kind, amount, status,
        paid_by.file_sec_code, effective, rand() < 0.05, created,
        f"ext-{pk}" if rand() < 0.3 else "", rand() < 0.005,
        f"RTP{pk:012d}" if paid_by.settles_at_birth else "", f"idem-{pk}" if rand() < 0.4 else "",
        choice(("", "", "Monthly subscription", "Invoice payment", "Order")),
        "Insufficient risk score" if status in ("DECLINED", "Rejected") else "",
        category, uuid.UUID(int=CATEGORIES.index(category) + 1) if category else None,
        card_cols[4], created + timedelta(hours=3) if status == "Voided" else None,
        created + timedelta(days=2) if status == "Reversed" else None,
        uuid.uuid4() if status == "Reversed" else None,
        name, "" if card else choice(("Checking", "Checking", "Savings")), account[0] or None, account[1],
        account[2], routing, *card_cols[:4], card_cols[4], card_cols[5], card_cols[6],
        f"0910000{pk:08d}" if batched else "",
        datetime(effective.year, effective.month, effective.day, 17, tzinfo=UTC) if batched else None,
        late.late_at, batch_id, company.pk, late.ingestion_file, late.late_settlement, settlement_id, True,
    )  # fmt: skip
