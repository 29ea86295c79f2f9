"""The PostgreSQL seed in sets: each chunk of transactions is one INSERT ... SELECT over generate_series, with its
returns, notices of change, holds and exceptions written by the same statement from the rows it inserted. Python
only encrypts the pool of account numbers (a few thousand Fernet operations) and names the ids; the server draws
every value from the same tables of weights (sampledata.tables) as the row-by-row seed SQLite uses (sampledata.seeding).

A load that at least doubles the transaction table (the bench's fresh 10M rows, a new demo database) drops the
table's secondary indexes and the foreign keys of the tables it fills, and builds them again once at the end: one
sort per index and one join per key, where keeping them row by row cost 200-300 us a row (62 minutes for 10M
rows). It holds those tables exclusively until it commits; every change is in the seed's one transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta

from django.db import connections

from sampledata import tables
from transactions.methods import METHODS
from transactions.models import ChangeNotice, Transaction, TransactionException, TransactionHold, TransactionReturn
from transactions.return_codes import CHANGE_CODES, RETURN_CODES
from transactions.rules import DEFAULT_ENTRY_DESCRIPTION
from vault.records import MASK_PREFIX

STATEMENT_ROWS = 500_000
# A load this large onto a table no larger rebuilds indexes and keys instead of keeping them row by row.
REBUILD_MIN_ROWS = 100_000
REBUILT_TABLES = (Transaction, TransactionReturn, ChangeNotice, TransactionHold, TransactionException)
# Each chunk's statement sorts and hashes its 500,000 rows (the DISTINCT ids, the joins of the child rows); at the
# default 4MB it spills them to temporary files. Set for the seed's own transaction only.
SEED_WORK_MEM = "256MB"


class _Params:
    """Named query parameters collected while the SQL text is built (values never go into the text)."""

    def __init__(self) -> None:
        self.values: dict[str, object] = {}

    def __call__(self, value: object) -> str:
        name = f"p{len(self.values)}"
        self.values[name] = value
        return f"%({name})s"


def _pick(draw: str, table: Sequence[tuple], p: _Params) -> str:
    """CASE over a uniform draw in [0, 1) choosing a value with the table's weights (value first, weight last), as
    random.choices with cumulative weights does."""
    total = sum(row[-1] for row in table)
    cases, running = [], 0
    for row in table[:-1]:
        running += row[-1]
        cases.append(f"WHEN {draw} < {running / total!r} THEN {p(row[0])}")
    return f"(CASE {' '.join(cases)} ELSE {p(table[-1][0])} END)" if cases else p(table[-1][0])


def _one_of(values: Sequence[object], p: _Params, cast: str = "text") -> str:
    """A uniformly chosen element of `values` (each value once, as rng.choice)."""
    return f"({p(list(values))}::{cast}[])[1 + floor(random() * {len(values)})::int]"


def _methods_with(flag: str) -> list[str]:
    return [code for code, kind in METHODS.items() if getattr(kind, flag)]


def seed_in_sets(
    *, company_id: int, count: int, txn_start: int, now: datetime, days: int, pool: list[tuple[str, str, str]],
    files: list[int], batch_start: int, settlement_ids: Callable[[], int], existing_settlements: dict,
    counts: dict, progress: Callable[[int], None] | None, alias: str, seed: int,
) -> int:  # fmt: skip
    """Writes `count` transactions from id `txn_start` with their child rows, batches and settlements, and adds
    to `counts`. Runs inside the caller's transaction."""
    start_day = (now - timedelta(days=days)).date()
    with connections[alias].cursor() as cursor:
        cursor.execute(f"SET LOCAL work_mem = '{SEED_WORK_MEM}'")
        cursor.execute("SELECT setseed(%s)", [(seed % 1000) / 1000])
        _temp_table(cursor, "seed_account", ("n int", "stored text", "hash text", "last_four text"), "n",
                    [(n, *row) for n, row in enumerate(pool)])  # fmt: skip
        _temp_table(cursor, "seed_settlement", ("kind text", "day date", "id bigint", "is_new bool"), "kind, day",
                    _settlement_days(start_day, now.date(), existing_settlements, settlement_ids))  # fmt: skip
        rebuild = _drop_keys_and_indexes(cursor, count)
        params = _Params()
        sql = _chunk_sql(params, tables, company_id=company_id, now=now, start_day=start_day, days=days,
                         pool_size=len(pool), files=files, txn_start=txn_start, count=count,
                         batch_start=batch_start)  # fmt: skip
        batches: set[int] = set()
        settlements: set[int] = set()
        for first in range(txn_start, txn_start + count, STATEMENT_ROWS):
            last = min(first + STATEMENT_ROWS, txn_start + count) - 1
            cursor.execute(sql, params.values | {"first": first, "last": last})
            returns, late, notices, holds, exceptions, batch_ids, settlement_ids_used = cursor.fetchone()
            for key, n in (("returns", returns), ("late_returns", late), ("notices", notices), ("holds", holds),
                           ("exceptions", exceptions)):  # fmt: skip
                counts[key] += n
            batches.update(batch_ids or ())
            settlements.update(settlement_ids_used or ())
            if progress:
                progress(last - first + 1)
        _write_parents(cursor, company_id, start_day, batch_start, sorted(batches), sorted(settlements))
        for statement in rebuild:
            cursor.execute(statement)
    return count


def _temp_table(cursor, name: str, columns: tuple[str, ...], key: str, rows: list[tuple]) -> None:
    """A temporary table (dropped at commit, or by a second seed in the same transaction) of `columns` ("name
    type"), filled by COPY."""
    cursor.execute(f"DROP TABLE IF EXISTS pg_temp.{name}")
    cursor.execute(f"CREATE TEMP TABLE {name} ({', '.join(columns)}, PRIMARY KEY ({key})) ON COMMIT DROP")
    with cursor.cursor.copy(f"COPY {name} ({', '.join(c.split()[0] for c in columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    cursor.execute(f"ANALYZE {name}")


def _write_parents(cursor, company_id: int, start_day: date, batch_start: int, batches: list[int],
                   settlements: list[int]) -> None:  # fmt: skip
    """The batches (one per effective day, id batch_start + days from start_day) and the new settlements the
    seeded rows refer to."""
    cursor.execute(
        "INSERT INTO transactions_batch (id, uuid, standard_entry_class_code, effective_date, batched_at, "
        "batch_number, entry_count, debit_total, credit_total, company_id, origination_file_id, entry_description) "
        "SELECT id, gen_random_uuid(), 'WEB', day, (day + time '21:00') AT TIME ZONE 'UTC', 1, 0, 0, 0, %s, NULL, %s "
        "FROM (SELECT id, %s::date + (id - %s)::int AS day FROM unnest(%s::bigint[]) AS id) AS used",
        [company_id, DEFAULT_ENTRY_DESCRIPTION, start_day, batch_start, batches],
    )
    cursor.execute(
        "INSERT INTO transactions_settlement (id, uuid, kind, settlement_date, processed_at, transaction_count, "
        "net_amount, company_id) "
        "SELECT id, gen_random_uuid(), kind, day, (day + time '23:00') AT TIME ZONE 'UTC', 0, 0, %s "
        "FROM seed_settlement WHERE is_new AND id = ANY(%s::bigint[])",
        [company_id, settlements],
    )


def _drop_keys_and_indexes(cursor, count: int) -> list[str]:
    """When `count` new rows at least double the transaction table (and are REBUILD_MIN_ROWS or more): drops its
    secondary indexes and unreferenced unique constraints, and the foreign keys of every table the seed fills;
    returns the statements that make them again, as they were (pg_get_indexdef, pg_get_constraintdef)."""
    if count < REBUILD_MIN_ROWS:
        return []
    txn = Transaction._meta.db_table
    cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM {txn} LIMIT %s) AS present", [count + 1])  # noqa: S608
    if cursor.fetchone()[0] > count:
        return []
    rebuilt = [model._meta.db_table for model in REBUILT_TABLES]
    cursor.execute(
        "SELECT c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint AS c "
        "WHERE c.conrelid = ANY(%s::regclass[]) AND (c.contype = 'f' OR (c.contype = 'u' AND c.conrelid = %s::regclass "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint AS f WHERE f.contype = 'f' AND f.conindid = c.conindid))) "
        "ORDER BY c.contype DESC, c.conname",
        [rebuilt, txn],
    )
    constraints = cursor.fetchall()
    cursor.execute(
        "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index AS i "
        "WHERE i.indrelid = %s::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = i.indexrelid) "
        "ORDER BY 1",
        [txn],
    )
    indexes = cursor.fetchall()
    for table, name, _ in constraints:
        cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    for name, _ in indexes:
        cursor.execute(f"DROP INDEX {name}")
    # Unique constraints (sorted first) before the keys; the sorts of the index builds get memory of their own.
    return [
        "SET LOCAL maintenance_work_mem = '512MB'",
        *(definition for _, definition in indexes),
        *(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}' for table, name, definition in constraints),
    ]


def _settlement_days(start_day: date, today: date, existing: dict, next_id: Callable[[], int]) -> list[tuple]:
    """(kind, day, id, is new) for every day a seeded row can settle on: the company's own settlement when it has
    one, else a new id (written only if a row refers to it)."""
    rows = []
    for kind in ("regular", "late_return"):
        for offset in range((today - start_day).days + 8):
            day = start_day + timedelta(days=offset)
            known = existing.get((kind, day))
            rows.append((kind, day, known or next_id(), known is None))
    return rows


def _chunk_sql(p: _Params, tables, *, company_id: int, now: datetime, start_day: date, days: int, pool_size: int,
               files: list[int], txn_start: int, count: int, batch_start: int) -> str:  # fmt: skip
    """One statement: the transactions of ids %(first)s..%(last)s, then their child rows from what it inserted;
    it answers (returns, late returns, notices, holds, exceptions, the batch ids and settlement ids it used)."""
    values = _Values(p, now=now, start_day=start_day)
    rows = _rows_ctes(p, tables, values, days=days, pool_size=pool_size, files=files, txn_start=txn_start,
                      count=count)  # fmt: skip
    inserted = _inserted_cte(p, tables, values, company_id=company_id, batch_start=batch_start)
    return f"""
    WITH {rows},
    {inserted},
    {_child_ctes(p, tables, files)}
    SELECT (SELECT count(*) FROM returns), (SELECT count(*) FROM inserted WHERE late_returned_at IS NOT NULL),
           (SELECT count(*) FROM notices), (SELECT count(*) FROM holds), (SELECT count(*) FROM exceptions),
           (SELECT array_agg(DISTINCT batch_id) FROM inserted WHERE batch_id IS NOT NULL),
           (SELECT array_agg(DISTINCT s) FROM inserted, unnest(ARRAY[settlement_id, late_return_settlement_id]) AS s
            WHERE s IS NOT NULL)
    """  # noqa: S608 (the text holds placeholders and code's own table names; every value is a parameter)


class _Values:
    """The placeholders of the values every part of the statement uses."""

    def __init__(self, p: _Params, *, now: datetime, start_day: date) -> None:
        self.now, self.today, self.start = p(now), p(now.date()), p(start_day)


def _rows_ctes(p: _Params, tables, values: _Values, *, days: int, pool_size: int, files: list[int], txn_start: int,
               count: int) -> str:  # fmt: skip
    """The CTEs that draw each row's values, up to `rows` (the columns the INSERT reads)."""
    now_, today_ = values.now, values.today
    span = days * 86400
    card_methods = _methods_with("pays_by_card")
    # Each level reads the draws of the one below (OFFSET 0 keeps each level's random() evaluated once a row).
    return f"""drawn AS (
        SELECT n AS pk, created, (created AT TIME ZONE 'UTC') AS local, method, picked_status, card, u_return,
               u_late, u_code, u_amount1, u_amount2, floor(u_account * {pool_size})::int AS account_n
        FROM (
            SELECT n, {now_}::timestamptz - make_interval(secs => {span} * (1 - ((n - {p(txn_start)})
                       + random()) / {p(float(count))})) AS created,
                   {_pick("u_method", tables.METHODS, p)} AS method, {_pick("u_status", tables.STATUSES, p)}
                       AS picked_status, u_return, u_late, u_code, u_amount1, u_amount2, u_account
            FROM (SELECT n, random() AS u_method, random() AS u_status, random() AS u_return, random() AS u_late,
                         random() AS u_code, random() AS u_amount1, random() AS u_amount2, random() AS u_account
                  FROM generate_series(%(first)s::bigint, %(last)s::bigint) AS n OFFSET 0) AS draws
            OFFSET 0
        ) AS picked
        CROSS JOIN LATERAL (SELECT method = ANY({p(card_methods)}::text[]) AS card) AS kind
    ),
    dated AS (
        SELECT *, (local::date + 1 + CASE WHEN extract(isodow FROM local) >= 5 THEN 2 ELSE 0 END) AS effective,
               CASE WHEN card AND picked_status = 'Returned' THEN 'Settled' ELSE picked_status END AS card_status
        FROM drawn
    ),
    statused AS (
        SELECT *, CASE WHEN NOT card AND effective > {today_}::date
                            AND card_status IN ('Settled', 'Returned', 'Reversed', 'Rejected', 'Processing')
                       THEN 'Pending' ELSE card_status END AS status
        FROM dated
    ),
    flagged AS (
        SELECT *, (NOT card AND status NOT IN ('Pending', 'DECLINED', 'HELD') AND effective <= {today_}::date)
                      AS batched,
               greatest(100, floor(exp(8.5 + 1.3 * sqrt(-2 * ln(1 - u_amount1)) * cos(2 * pi() * u_amount2))))::bigint
                      AS drawn_amount,
               CASE WHEN status = 'Returned' THEN
                   ((effective + 1 + mod(pk, 2)::int) + local::time) AT TIME ZONE 'UTC' END AS on_time_return
        FROM statused
    ),
    {_outcome_ctes(p, tables, values, pool_size=pool_size, files=files)}
    """  # noqa: S608


def _outcome_ctes(p: _Params, tables, values: _Values, *, pool_size: int, files: list[int]) -> str:
    """After the draws: settlement, return, account, card and category of each row, then `rows`."""
    today_, start_ = values.today, values.start
    return_codes = tuple((code, weight) for code, weight in tables.RETURN_CODE_WEIGHTS)
    category = f"(CASE WHEN random() < 0.3 THEN 1 + floor(random() * {len(tables.CATEGORIES)})::int END)"
    return f"""returned AS (
        SELECT *, batched AND status IN ('Settled', 'Returned', 'Reversed') AND effective < {today_}::date AS settled,
               CASE WHEN on_time_return IS NOT NULL AND u_late < 0.15
                    THEN on_time_return + make_interval(days => 3 + floor(u_return * 47)::int) END AS late_at,
               CASE WHEN on_time_return IS NOT NULL THEN {_pick("u_code", return_codes, p)} END AS return_code
        FROM flagged
    ),
    source AS (
        SELECT r.*, coalesce(late_at, on_time_return) AS returned_at, a.stored, a.hash, a.last_four,
               {_one_of(tables.ROUTING, p)} AS bank_routing, {_one_of(("411111", "555555", "378282", "601111"), p)}
                   AS first_six, lpad(floor(random() * 10000)::text, 4, '0') AS card_last,
               {category} AS category_n
        FROM returned AS r
        LEFT JOIN seed_account AS a ON NOT r.card AND a.n = r.account_n
    ),
    rows AS (
        SELECT s.*,
               CASE WHEN returned_at IS NOT NULL THEN ({p(files)}::bigint[])
                   [1 + least(greatest((returned_at::date - {start_}::date) / 7, 0), {len(files) - 1})] END
                   AS ingestion_file
        FROM source AS s
    )"""  # noqa: S608


def _inserted_cte(p: _Params, tables, values: _Values, *, company_id: int, batch_start: int) -> str:
    """The INSERT of the transactions, returning what the child rows are made from."""
    today_, start_ = values.today, values.start
    company = p(company_id)
    at_birth = _methods_with("settles_at_birth")
    sec_code = " ".join(f"WHEN method = {p(code)} THEN {p(kind.file_sec_code)}" for code, kind in METHODS.items())
    sec_code = f"CASE {sec_code} END"
    names = (f"CASE WHEN random() < 0.8 THEN {_one_of(tables.FIRST, p)} || ' ' || {_one_of(tables.LAST, p)} "
             f"ELSE {_one_of(tables.COMPANIES, p)} END")  # fmt: skip
    txn_columns = [c for c in tables.TRANSACTION_COLUMNS if c != "uuid"] + ["return_code"]
    return f"""inserted AS (
        INSERT INTO transactions_transaction (uuid, {", ".join(txn_columns)})
        SELECT gen_random_uuid(), pk, gen_random_uuid(),
               CASE WHEN random() < 0.1 THEN 'H' || pk ELSE '' END, method,
               CASE WHEN random() < 0.12 THEN 'Credit' ELSE 'Debit' END,
               CASE WHEN status = 'HELD' THEN greatest(drawn_amount, 1000001) ELSE drawn_amount END, status,
               {sec_code}, effective, random() < 0.05, created,
               CASE WHEN random() < 0.3 THEN 'ext-' || pk ELSE '' END, random() < 0.005,
               CASE WHEN method = ANY({p(at_birth)}::text[]) THEN 'RTP' || lpad(pk::text, 12, '0') ELSE '' END,
               CASE WHEN random() < 0.4 THEN 'idem-' || pk ELSE '' END,
               {_one_of(("", "", "Monthly subscription", "Invoice payment", "Order"), p)},
               CASE WHEN status IN ('DECLINED', 'Rejected') THEN 'Insufficient risk score' ELSE '' END,
               coalesce(({p(list(tables.CATEGORIES))}::text[])[category_n], ''),
               CASE WHEN category_n IS NOT NULL
                    THEN ('00000000-0000-0000-0000-' || lpad(category_n::text, 12, '0'))::uuid END,
               CASE WHEN card THEN created END,
               CASE WHEN status = 'Voided' THEN created + interval '3 hours' END,
               CASE WHEN status = 'Reversed' THEN created + interval '2 days' END,
               CASE WHEN status = 'Reversed' THEN gen_random_uuid() END,
               {names},
               CASE WHEN card THEN '' ELSE {_one_of(("Checking", "Checking", "Savings"), p)} END,
               stored, coalesce(hash, ''), coalesce(last_four, ''), CASE WHEN card THEN '' ELSE bank_routing END,
               CASE WHEN card THEN first_six ELSE '' END, CASE WHEN card THEN card_last ELSE '' END,
               CASE WHEN card THEN first_six || '******' || card_last ELSE '' END,
               CASE WHEN card THEN lpad((1 + floor(random() * 12))::text, 2, '0') || '/'
                                   || (27 + floor(random() * 5))::text ELSE '' END,
               CASE WHEN card THEN created END,
               CASE WHEN NOT card THEN '' WHEN status = 'DECLINED' THEN '05' ELSE '00' END,
               CASE WHEN card AND status = 'Settled' THEN created + interval '2 hours' END,
               CASE WHEN batched THEN '0910000' || lpad(pk::text, 8, '0') ELSE '' END,
               CASE WHEN batched THEN (effective + time '17:00') AT TIME ZONE 'UTC' END,
               late_at,
               CASE WHEN batched THEN {p(batch_start)}::bigint + (effective - {start_}::date) END,
               {company}, ingestion_file, late.id, regular.id, true, return_code
        FROM rows
        LEFT JOIN seed_settlement AS late ON late.kind = 'late_return' AND late_at IS NOT NULL
             AND late.day = least(late_at::date, {today_}::date)
        LEFT JOIN seed_settlement AS regular ON regular.kind = 'regular' AND settled AND regular.day = effective + 1
        RETURNING id, company_id, created_at, effective_date, status, amount, method, batch_id, routing_number,
                  account_last_four, return_code, late_returned_at, ingestion_file_id, settlement_id,
                  late_return_settlement_id
    )"""  # noqa: S608


def _child_ctes(p: _Params, tables, files: list[int]) -> str:
    """The returns, notices of change, holds and exceptions of the inserted rows."""
    in_file = _methods_with("in_nacha_file")
    reasons = " ".join(
        f"WHEN t.return_code = {p(code)} THEN {p(RETURN_CODES[code].reason)}" for code, _ in tables.RETURN_CODE_WEIGHTS
    )
    reasons = f"CASE {reasons} END"
    change = tables.SAMPLE_CHANGE_CODES
    return f"""returns AS (
        INSERT INTO transactions_transactionreturn (uuid, return_code, return_reason, returned_at, company_id,
                                                    ingestion_file_id, transaction_id)
        SELECT gen_random_uuid(), t.return_code, {reasons},
               coalesce(t.late_returned_at,
                        ((t.effective_date + 1 + mod(t.id, 2)::int) + (t.created_at AT TIME ZONE 'UTC')::time)
                        AT TIME ZONE 'UTC'),
               t.company_id, t.ingestion_file_id, t.id
        FROM inserted AS t WHERE t.return_code IS NOT NULL
        RETURNING 1
    ),
    noticed AS (
        SELECT t.*, {_pick("u", tuple((code, 1) for code, _ in change), p)} AS code FROM (
            SELECT t.*, random() AS u FROM inserted AS t
            WHERE t.batch_id IS NOT NULL AND t.method = ANY({p(in_file)}::text[]) AND random() < 0.012 OFFSET 0
        ) AS t
    ),
    notices AS (
        INSERT INTO transactions_changenotice (uuid, change_code, change_reason, changed_at, noc_received_at,
                                               old_value, new_value, company_id, ingestion_file_id, transaction_id)
        SELECT gen_random_uuid(), code, CASE {
        " ".join(f"WHEN code = {p(c)} THEN {p(CHANGE_CODES[c].reason)}" for c, _ in change)
    } END,
               changed, changed + interval '3 hours',
               jsonb_build_object(change_key, CASE change_key WHEN 'routingNumber' THEN routing_number
                                                WHEN 'accountNumber' THEN {p(MASK_PREFIX)} || account_last_four
                                                WHEN 'accountType' THEN 'Checking' ELSE 'old' END),
               jsonb_build_object(change_key, CASE change_key WHEN 'routingNumber' THEN {_one_of(tables.ROUTING, p)}
                                                WHEN 'accountNumber' THEN {p(MASK_PREFIX)}
                                                    || lpad(floor(random() * 10000)::text, 4, '0')
                                                WHEN 'accountType' THEN 'Savings' ELSE 'new' END),
               company_id, {p(files[0])}::bigint, id
        FROM (SELECT t.*, CASE {" ".join(f"WHEN code = {p(c)} THEN {p(k)}" for c, k in change)} END AS change_key,
                     t.created_at + make_interval(days => 2 + floor(random() * 4)::int) AS changed
              FROM noticed AS t OFFSET 0) AS t
        RETURNING 1
    ),
    {_hold_and_exception_ctes(p)}
    """  # noqa: S608


def _hold_and_exception_ctes(p: _Params) -> str:
    return f"""holds AS (
        INSERT INTO transactions_transactionhold (hold_code, hold_reason, held_at, released_at, company_id,
                                                  transaction_id)
        SELECT 'AMT', 'Amount over the company hold limit', created_at,
               CASE WHEN status <> 'HELD' THEN created_at + make_interval(hours => 1 + floor(random() * 47)::int) END,
               company_id, id
        FROM inserted WHERE status = 'HELD' OR (amount > 100000 AND random() < 0.01)
        RETURNING 1
    ),
    exceptions AS (
        INSERT INTO transactions_transactionexception (reject_reason, rejected_at, restored_at, acknowledged_at,
                                                       company_id, transaction_id)
        SELECT {_one_of(("Invalid account", "Risk review failed", "Duplicate entry"), p)},
               created_at + interval '1 hour',
               CASE WHEN random() < 0.2 THEN created_at + interval '1 day' END,
               CASE WHEN random() < 0.5 THEN created_at + interval '5 hours' END, company_id, id
        FROM inserted WHERE status = 'Rejected'
        RETURNING 1
    )"""  # noqa: S608
