"""Lifecycle at volume: a day of due ACH entries through originate, settle, import_returns and the late settle.

Seeds `--entries` Pending entries due on one processing day across `--companies` companies (one SQL statement on
PostgreSQL, from a pool of distinct accounts), each with the transaction.created event its charge wrote, then runs
each command as its own process (as cron does), from the project's compiled bytecode (as `make install` leaves a
deployment), and prints its wall time, entries/s and peak RSS (its VmHWM).
Between the steps it checks what must hold at volume: every file passes the independent readers (achkit and
tests/transactions/ach/nacha_reader, tests/nacha_check.py) and its control totals equal the database's, a 10%
return file is matched in full, and a NOC file is applied in full.

Uses its own database: a fresh SQLite file under a temporary VAR_DIR, or, with --database-url, that PostgreSQL
database (dropped and recreated).

    .venv/bin/python bench/lifecycle.py --entries 20000 --database-url postgres://postgres@127.0.0.1:5432/bench_volume
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DAY = date(2026, 12, 7)  # a Monday
ORIGINATE_AT = "2026-12-07T15:00:00Z"
SETTLE_AT = "2026-12-08T22:00:01Z"  # after the next-day entries' 17:00 ET settlement
RETURNS_AT = "2026-12-09T14:00:00Z"
LATE_SETTLE_AT = "2026-12-09T22:00:00Z"
TARGET_RATE, TARGET_RSS_MB = 10_000, 500
# Issue 51: a bank's return and NOC files at 5,000 items a second (the command's start counted), the others 10,000.
TARGET_RATES = {"import_returns": 5_000, "import_returns NOC": 5_000}
RETURN_CODES = ("R01",) * 6 + ("R02", "R03", "R10", "R29")  # blocks as well as plain returns
ACCOUNTS = 20_000
URL: str | None = None  # --database-url
PROFILE_DIR: str | None = None  # --profile-dir: each command runs under cProfile, its stats written there
STATEMENTS = 0  # --statements: how many of each command's costliest statements to print (pg_stat_statements)
RETURNS: int | None = None  # --returns: the return file's items (default a tenth of the entries)
NOTICES: int | None = None  # --notices: the NOC file's (default a hundredth)


def _prepare_database(url: str | None, var_dir: str) -> None:
    os.environ.update({"DEBUG": "1", "VAR_DIR": var_dir, "LOG_LEVEL": "WARNING"})
    if url:
        import psycopg

        base, name = url.rsplit("/", 1)
        with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
            admin.execute(f'CREATE DATABASE "{name}"')
        os.environ["DATABASE_URL"] = url


def migrated_database(url: str | None, prefix: str) -> str:
    """A bench's own database, new and migrated (see _prepare_database), with Django set up on it; returns the
    VAR_DIR made for it."""
    var_dir = tempfile.mkdtemp(prefix=prefix)
    _prepare_database(url, var_dir)
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ["PYTHONSTARTUP"] = ""
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return var_dir


class _BackendClock:
    """The CPU seconds the command's PostgreSQL backend spends (utime + stime from /proc, polled while it runs):
    with the child's own CPU time it gives a rate that does not depend on how busy the shared machine is."""

    TICKS = os.sysconf("SC_CLK_TCK")

    def __init__(self, url: str | None, name: str) -> None:
        self.url, self.name, self.seconds, self.done = url, name, 0.0, threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self):
        if self.url:
            self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.url:
            self.thread.join()

    def _poll(self) -> None:
        import psycopg

        seen: dict[int, float] = {}
        with psycopg.connect(self.url, autocommit=True) as watcher:
            while not self.done.wait(0.2):
                pids = [
                    row[0]
                    for row in watcher.execute(
                        "SELECT pid FROM pg_stat_activity WHERE application_name = %s", [self.name]
                    )
                ]
                for pid in pids:
                    try:
                        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    except OSError:
                        continue
                    seen[pid] = (int(fields[11]) + int(fields[12])) / self.TICKS
                self.seconds = sum(seen.values())


# The command's own peak RSS: VmHWM of its address space, read as it exits. (ru_maxrss would not do: Linux carries
# the forking bench's high-water mark into the child across exec.)
PEAK_RSS_WRAPPER = (
    "import atexit, runpy, sys\n"
    "def peak():\n"
    "    line = next(line for line in open('/proc/self/status') if line.startswith('VmHWM'))\n"
    "    print('peak-rss-kb', line.split()[1], file=sys.stderr)\n"
    "atexit.register(peak)\n"
    "sys.argv = sys.argv[1:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def _peak_rss_mb(stderr: str) -> float:
    for line in reversed(stderr.splitlines()):
        if line.startswith("peak-rss-kb "):
            return int(line.split()[1]) / 1024
    return float("nan")


def _command(label: str, count: int, *args: str) -> dict:
    """One command in its own process, as cron runs it: wall time, entries/s, its peak RSS (VmHWM), and
    the CPU seconds of the child and of its database backend."""
    name = f"bench-lifecycle-{os.getpid()}-{label.replace(' ', '-')}"
    # As cron runs it: DEBUG off (with DEBUG Django keeps the text of its last 9000 statements, arrays of 20k ids
    # included, in memory), the secrets the seeding generated passed as in production.
    secrets = json.loads((Path(os.environ["VAR_DIR"]) / "dev-secrets.json").read_text())
    environment = {**os.environ, **secrets, "DEBUG": "0", "PGAPPNAME": name}
    _statements_reset()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, _BackendClock(URL, name) as backend:
        started = time.perf_counter()
        runner = ["-c", PEAK_RSS_WRAPPER]
        if PROFILE_DIR:
            runner = ["-m", "cProfile", "-o", str(Path(PROFILE_DIR) / f"{label.replace(' ', '-')}.prof")]
        child = subprocess.Popen(
            [sys.executable, *runner, str(ROOT / "manage.py"), *args],
            stdout=out,
            stderr=err,
            cwd=ROOT,
            env=environment,
        )
        _pid, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        output, errors = out.read().decode(), err.read().decode()
    if child.returncode != 0:
        sys.exit(f"{label} failed ({child.returncode}): {errors[-2000:]}")
    result = json.loads(output.strip().splitlines()[-1])
    rss_mb = _peak_rss_mb(errors)
    python_cpu = usage.ru_utime + usage.ru_stime
    cpu = python_cpu + backend.seconds
    rate = count / elapsed
    verdict = "ok" if rate >= TARGET_RATES.get(label, TARGET_RATE) and rss_mb < TARGET_RSS_MB else "MISSED"
    print(
        f"{label:<18} {count:>9,} {elapsed:8.2f} s {rate:9,.0f}/s {rss_mb:6.0f} MB  {verdict:<6}"
        f" cpu: python {python_cpu:6.1f} s + postgres {backend.seconds:6.1f} s = {count / cpu:7,.0f}/cpu-s",
        flush=True,
    )
    _statements_print()
    return result


def _statements_reset() -> None:
    if STATEMENTS and URL:
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
            cursor.execute("SELECT pg_stat_statements_reset()")


def _statements_print() -> None:
    """Where the command's PostgreSQL time went: its costliest statements (needs pg_stat_statements preloaded)."""
    if not (STATEMENTS and URL):
        return
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT total_exec_time / 1000, calls, rows, shared_blks_hit + shared_blks_read, wal_bytes, "
            "regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
            "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) "
            "ORDER BY total_exec_time DESC LIMIT %s",
            [STATEMENTS],
        )
        for seconds, calls, rows, blocks, wal, query in cursor.fetchall():
            print(
                f"{'':<18} {seconds:7.2f} s {calls:>6} calls {rows:>9,} rows {blocks:>10,} blocks "
                f"{int(wal) / 1e6:7.1f} MB WAL  {query[:150]}"
            )


def _seed(entries: int, companies: int, *, saved_methods: bool = False) -> None:
    from django.db import connection

    from accounts.models import Company, MerchantSettings
    from transactions.models import Transaction
    from vault import crypto

    rng = random.Random(29)
    made = Company.objects.bulk_create([Company(name=f"Bench {n}") for n in range(companies)])
    MerchantSettings.objects.bulk_create([MerchantSettings(company=company) for company in made])
    pool = []
    for n in range(ACCOUNTS):
        number = str(10_000_000 + rng.randrange(10**9))
        pool.append((n, crypto.encrypt(number), crypto.account_number_hash(number), number[-4:]))
    if connection.vendor == "postgresql":
        company_ids = [company.pk for company in made]
        methods = _saved_methods(entries, company_ids, pool) if saved_methods else []
        _seed_postgresql(entries, company_ids, pool, methods)
    else:
        Transaction.objects.bulk_create(
            [
                Transaction(**_columns(n, made[n % companies].pk, pool[n % ACCOUNTS], encrypted=False))
                for n in range(entries)
            ],
            batch_size=2000,
        )
    _created_events()


CREATED_EVENTS_CHUNK = 100_000


def _created_events() -> None:
    """Each entry's transaction.created event, as its charge wrote it: with it the entry's event sequence exists,
    so the day's moves number their events on from it (an update of the sequence row, not an insert) and the
    events table holds a day's births, as on a real day."""
    from django.db import connection, transaction

    from events.models import Event, ObjectSequence
    from events.types import EventType
    from transactions.events import transactions_event
    from transactions.models import Transaction

    ids = list(Transaction.objects.order_by("pk").values_list("pk", flat=True))
    for start in range(0, len(ids), CREATED_EVENTS_CHUNK):
        with transaction.atomic():
            transactions_event(ids[start : start + CREATED_EVENTS_CHUNK], EventType.TRANSACTION_CREATED)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            for model in (Event, ObjectSequence):
                cursor.execute(f"VACUUM (ANALYZE) {model._meta.db_table}")


def _columns(n: int, company_id: int, account: tuple, *, encrypted: bool) -> dict:
    credit = n % 10 == 0
    return {
        "company_id": company_id,
        "method": "ACH",
        "type": "Credit" if credit else "Debit",
        "amount": 100 + n % 5000,
        "standard_entry_class_code": "PPD" if credit else ("WEB", "PPD", "CCD")[n % 3],
        "effective_date": DAY,
        "name": f"Payer {n}",
        "account_type": "Savings" if n % 3 == 0 else "Checking",
        "account_number": account[1] if encrypted else crypto_plain(account),
        "account_number_hash": account[2],
        "account_last_four": account[3],
        "routing_number": "021000021",
    }


def crypto_plain(account: tuple) -> str:
    from vault import crypto

    return crypto.decrypt(account[1])


def _saved_methods(entries: int, company_ids: list[int], pool: list[tuple]) -> list[tuple[int, int, int, int]]:
    """A customer with a saved method for each (company, account) the entries use: (company, account, customer,
    method) each."""
    from customers.models import Customer
    from payments.models import PaymentMethod
    from vault import crypto

    pairs = sorted({(company_ids[n % len(company_ids)], n % ACCOUNTS) for n in range(min(entries, 10**6))})
    customers = Customer.objects.bulk_create(
        [Customer(company_id=company_id, first_name="Payer", last_name=str(k)) for company_id, k in pairs],
        batch_size=5000,
    )
    methods = []
    for (company_id, k), customer in zip(pairs, customers, strict=True):
        number = crypto.decrypt(pool[k][1])
        methods.append(
            PaymentMethod(
                company_id=company_id,
                customer=customer,
                account_type="Checking",
                account_number=number,
                account_hash=crypto.account_pair_hash("021000021", number),
                account_number_hash=pool[k][2],
                last_four=pool[k][3],
                routing_number="021000021",
                is_default=True,
            )
        )
    PaymentMethod.objects.bulk_create(methods, batch_size=5000)
    return [(c, k, customer.pk, method.pk) for (c, k), customer, method in zip(pairs, customers, methods, strict=True)]


def _seed_postgresql(entries: int, company_ids: list[int], pool: list[tuple], methods: list[tuple]) -> None:
    """One INSERT ... SELECT from generate_series: a template row (every column as the ORM writes it) varied per n,
    with its saved method's customer and method when `methods` has them."""
    from django.db import connection

    from transactions.models import Transaction

    template = Transaction(**_columns(0, company_ids[0], pool[0], encrypted=False))
    meta = Transaction._meta
    fields = [f for f in meta.local_concrete_fields if f is not meta.auto_field and not f.generated]
    varied = {
        "company_id": "(%(companies)s::bigint[])[1 + n %% %(company_count)s]",
        "uuid": "gen_random_uuid()",
        "sequence_uuid": "gen_random_uuid()",
        "type": "CASE WHEN n %% 10 = 0 THEN 'Credit' ELSE 'Debit' END",
        "amount": "100 + n %% 5000",
        "standard_entry_class_code": "CASE WHEN n %% 10 = 0 THEN 'PPD' ELSE (ARRAY['WEB','PPD','CCD'])[1 + n %% 3] END",
        "name": "'Payer ' || n",
        "account_type": "CASE WHEN n %% 3 = 0 THEN 'Savings' ELSE 'Checking' END",
        "account_number": "a.encrypted",
        "account_number_hash": "a.hashed",
        "account_last_four": "a.last_four",
        "customer_id": "m.customer_id",
        "payment_method_id": "m.method_id",
    }
    columns, values, params = [], [], {"companies": company_ids, "company_count": len(company_ids)}
    for field in fields:
        columns.append(connection.ops.quote_name(field.column))
        if field.attname in varied:
            values.append(varied[field.attname])
        else:
            params[field.attname] = field.get_db_prep_save(field.pre_save(template, add=True), connection)
            values.append(f"%({field.attname})s")
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE bench_account (k int PRIMARY KEY, encrypted text, hashed text, last_four text)"
        )
        with cursor.cursor.copy("COPY bench_account FROM STDIN") as copy:
            for row in pool:
                copy.write_row(row)
        cursor.execute(
            "CREATE TEMP TABLE bench_method (company_id bigint, k int, customer_id bigint, method_id bigint)"
        )
        with cursor.cursor.copy("COPY bench_method FROM STDIN") as copy:
            for row in methods:
                copy.write_row(row)
        cursor.execute(
            f"INSERT INTO {meta.db_table} ({', '.join(columns)}) "
            f"SELECT {', '.join(values)} FROM generate_series(0, %(last)s) AS n "
            f"JOIN bench_account a ON a.k = n %% {ACCOUNTS} "
            f"LEFT JOIN bench_method m ON m.k = a.k "
            f"AND m.company_id = (%(companies)s::bigint[])[1 + n %% %(company_count)s] "
            # In n order, as a day's charges arrive: ids, and so the table's pages, interleave the companies.
            "ORDER BY n",
            {**params, "last": entries - 1},
        )
        cursor.execute(f"VACUUM (ANALYZE) {meta.db_table}")


def _check_files(paths: list[str], entries: int) -> None:
    """The independent readers accept every file, and the file control totals equal the database's."""
    from django.db.models import Count, Q, Sum

    from tests import nacha_check
    from tests.transactions.ach import nacha_reader
    from transactions.models import Status, Transaction

    count = debits = credits = 0
    for path in paths:
        text = Path(path).read_text()
        problems = nacha_check.problems(text)
        if problems:
            sys.exit(f"{path}: {len(problems)} problems, first: {problems[:3]}")
        read = nacha_reader.read(text)
        for batch in read.batches:
            for entry in batch.entries:
                count += 1
                if entry.transaction_code in nacha_reader.CREDIT_CODES:
                    credits += entry.amount
                else:
                    debits += entry.amount
    database = Transaction.objects.filter(status=Status.PROCESSING).aggregate(
        count=Count("pk"), debits=Sum("amount", filter=Q(type="Debit")), credits=Sum("amount", filter=Q(type="Credit"))
    )
    found = {"count": count, "debits": debits, "credits": credits}
    if found != database or count != entries:
        sys.exit(f"file totals {found} differ from the database's {database} (seeded {entries})")
    print(f"{'':<18} files pass achkit and nacha_reader; {count:,} entries, totals equal the database's")


def _returns_file(var_dir: str, entries: int, items: int, code_of, name: str, at: datetime, corrected=None):
    """A NACHA return / NOC file of about `items` items naming every `step`-th entry of each company, company after
    company, as the RDFI sends it (written in chunks of rows): (its path, how many it names). Every `step`-th entry by
    id alone would name 5 of the 50 companies: the seed deals entries to companies in turn."""
    from transactions.models import Transaction
    from transactions.sandbox.bank_files import return_file_for

    step = max(1, round(entries / max(1, items)))
    ids = list(Transaction.objects.order_by("company_id", "id").values_list("id", flat=True)[::step])
    picked = []
    for start in range(0, len(ids), 5000):
        picked += list(Transaction.objects.select_related("company").filter(id__in=ids[start : start + 5000]))
    specs = [(txn, code_of(n), corrected(txn) if corrected else {}) for n, txn in enumerate(picked)]
    path = Path(var_dir) / name
    path.write_text(return_file_for(specs, at=at))
    return path, len(specs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", "--transactions", type=int, default=20000, dest="entries")
    parser.add_argument("--companies", type=int, default=50)
    parser.add_argument("--database-url")
    parser.add_argument("--seed-only", action="store_true", help="seed, print VAR_DIR and stop (for profiling)")
    parser.add_argument("--statements", type=int, default=0, help="print each command's N costliest statements")
    parser.add_argument("--profile-dir", help="run each command under cProfile, its stats written here (no RSS)")
    parser.add_argument("--skip-reader", action="store_true", help="do not read the files back (achkit is slow)")
    parser.add_argument(
        "--saved-methods",
        action="store_true",
        help="each account is a customer's saved method and its entries charge it (PostgreSQL): returns block "
        "methods and hold customers by the return policies, notices correct the methods",
    )
    parser.add_argument("--returns", type=int, help="returns in the return file (default: a tenth of the entries)")
    parser.add_argument("--notices", type=int, help="notices in the NOC file (default: a hundredth of the entries)")
    options = parser.parse_args()
    if options.saved_methods and not options.database_url:
        parser.error("--saved-methods needs --database-url")

    global URL, STATEMENTS, PROFILE_DIR, RETURNS, NOTICES
    URL, STATEMENTS, PROFILE_DIR = options.database_url, options.statements, options.profile_dir
    RETURNS, NOTICES = options.returns, options.notices
    var_dir = migrated_database(options.database_url, "bench-lifecycle-")
    started = time.perf_counter()
    _seed(options.entries, options.companies, saved_methods=options.saved_methods)
    count = options.entries
    engine = "PostgreSQL" if options.database_url else "SQLite"
    saved = ", charged from saved methods" if options.saved_methods else ""
    print(
        f"{count:,} entries, {options.companies} companies{saved}, {engine}; "
        f"seeded in {time.perf_counter() - started:.0f} s"
    )
    if options.seed_only:
        print(f"VAR_DIR={var_dir}")
        return
    if options.database_url:
        _write_ceiling(options.database_url)
    _bytecode_compile()
    print(
        f"{'command':<18} {'entries':>9} {'wall':>10} {'rate':>11} {'peak RSS':>9}  "
        f"(target >= {TARGET_RATE:,}/s, return files {TARGET_RATES['import_returns']:,}/s; < {TARGET_RSS_MB} MB)"
    )
    _lifecycle(count, var_dir, read_back=not options.skip_reader)


def _bytecode_compile() -> None:
    """The Makefile's `bytecode`, which `make install` runs: a deployed command reads its modules' bytecode (its
    /srv/vault is read-only, so Python could not write any); compiling them at each start cost the NOC file's command
    0.3 s of its ~2.5 s. `-o`: the venv counts as installed (a worktree shares its checkout's)."""
    subprocess.run(["make", "-s", "-o", ".venv/.installed", "bytecode"], check=True, cwd=ROOT)


CEILING_ROWS = 20_000


def _write_ceiling(url: str) -> None:
    """What moving an entry costs PostgreSQL at the least: one UPDATE of CEILING_ROWS entries by id (as each
    command's chunk does) changing an indexed column, as every status move does (effective_date here: only
    transactions.state writes a status), timed by the backend's own CPU and rolled back; with the table's indexes,
    then with its primary key and unique constraints' alone (the others dropped inside the rolled-back transaction).
    Such a move rewrites the row and an entry in every index: the floor under originate and settle before any event
    is written."""
    import psycopg

    def backend_cpu(connection) -> float:
        pid = connection.info.backend_pid
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _BackendClock.TICKS

    with psycopg.connect(url) as connection:
        table = "transactions_transaction"
        indexes = [
            name
            for (name,) in connection.execute(
                "SELECT indexname FROM pg_indexes WHERE tablename = %s AND indexname NOT IN "
                "(SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass)",
                [table, table],
            )
        ]
        connection.rollback()
        figures = []
        for keep_indexes in (True, False):
            best = None
            for _ in range(3):
                if not keep_indexes:
                    for name in indexes:
                        connection.execute(f'DROP INDEX "{name}"')
                before = backend_cpu(connection)
                connection.execute(
                    f"UPDATE {table} SET effective_date = effective_date + 1 WHERE id = ANY(ARRAY("
                    f"SELECT id FROM {table} ORDER BY id LIMIT %s))",
                    [CEILING_ROWS],
                )
                spent = backend_cpu(connection) - before
                connection.rollback()
                best = spent if best is None else min(best, spent)
            figures.append(CEILING_ROWS / max(best, 0.01))
        constrained = connection.execute(
            "SELECT count(*) FROM pg_constraint WHERE conrelid = %s::regclass AND contype IN ('p', 'u')", [table]
        ).fetchone()[0]
        settings = connection.execute(
            "SELECT string_agg(name || ' ' || current_setting(name), ', ' ORDER BY name) FROM pg_settings "
            "WHERE name IN ('shared_buffers', 'max_wal_size', 'checkpoint_timeout', 'autovacuum')"
        ).fetchone()[0]
    # At a million entries these decide much of the figures (docs/operations.md section 8).
    print(f"server: {settings}")
    print(
        f"ceiling: one UPDATE of an indexed column of {CEILING_ROWS:,} entries by id: {figures[0]:,.0f} entries per "
        f"PostgreSQL CPU-second with the table's {len(indexes) + constrained} indexes, {figures[1]:,.0f} with the "
        f"{constrained} of its primary key and unique constraints alone"
    )


def _return_code(n: int) -> str:
    return RETURN_CODES[n % len(RETURN_CODES)]


def _lifecycle(count: int, var_dir: str, *, read_back: bool) -> None:
    """Each command in turn, each outcome checked before the next."""
    from transactions.models import ChangeNotice, Status, Transaction

    originated = _command("originate", count, "originate", "--at", ORIGINATE_AT)
    size = sum(Path(path).stat().st_size for path in originated["files"])
    print(f"{'':<18} {len(originated['files'])} file(s), {originated['batches']} batches, {size / 1e6:.1f} MB")
    if read_back:
        _check_files(originated["files"], count)
    _command("settle", count, "settle", "--at", SETTLE_AT)
    settled = Transaction.objects.filter(status=Status.SETTLED).count()
    if settled != count:
        sys.exit(f"settle left {count - settled} entries unsettled")
    at = datetime(2026, 12, 9, 14, tzinfo=UTC)
    returns_wanted = RETURNS if RETURNS is not None else round(count * 0.1)
    path, returns = _returns_file(var_dir, count, returns_wanted, _return_code, "returns.ach", at)
    summary = _command("import_returns", returns, "import_returns", str(path), "--at", RETURNS_AT)
    if summary["returns"] != returns or summary["unmatched"] or summary["exceptions"]:
        sys.exit(
            f"return file not matched in full: {summary['returns']} of {returns}, {len(summary['unmatched'])} unmatched"
        )
    print(f"{'':<18} {returns:,} returns matched in full ({path.stat().st_size / 1e6:.1f} MB)")

    def corrected(txn):
        return {"accountType": "Checking" if txn.account_type == "Savings" else "Savings"}

    notices_wanted = NOTICES if NOTICES is not None else round(count * 0.01)
    noc_path, notices = _returns_file(var_dir, count, notices_wanted, lambda n: "C05", "nocs.ach", at, corrected)
    summary = _command("import_returns NOC", notices, "import_returns", str(noc_path), "--at", RETURNS_AT)
    if summary["notices"] != notices or ChangeNotice.objects.count() != notices:
        sys.exit(f"NOC file not applied in full: {summary['notices']} of {notices}")
    print(f"{'':<18} {notices:,} notices of change applied in full")
    _command("settle (late)", returns, "settle", "--at", LATE_SETTLE_AT)
    late = Transaction.objects.filter(status=Status.RETURNED, late_return_settlement__isnull=False).count()
    if late != returns:
        sys.exit(f"late settle settled {late} of {returns} late returns")


if __name__ == "__main__":
    main()
