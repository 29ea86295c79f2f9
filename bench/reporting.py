"""Reporting at a million rows: GET /reporting/transactions through gunicorn vs the same SQL through psycopg.

Uses its own PostgreSQL database (reused when already seeded): migrates it, seeds 1,000,000 transactions for
"Bench Merchant" and 1,000,000 for "Bench Other Merchant", starts gunicorn, runs a fixed query mix and prints
p50/p95 per query over HTTP and over psycopg (the SQL Django emits for that request, captured in-process) with
the ratio HTTP/SQL; then exports every row of the company as CSV and prints rows/s and the server's peak RSS.

    DEBUG=1 .venv/bin/python bench/reporting.py                 # defaults below
    DEBUG=1 .venv/bin/python bench/reporting.py --repeat 50 --database-url postgres://postgres@127.0.0.1:5432/x
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/bench_reporting"
COMPANY, OTHER = "Bench Merchant", "Bench Other Merchant"
SEED_STEP = 10_000


def _queries(account_number: str) -> list[tuple[str, dict[str, str], str]]:
    """(name, params, target) of the fixed mix; target is the p50 budget in ms."""
    from reporting.registry import FIELDS

    now = datetime.now(UTC).replace(microsecond=0)
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    all_columns = ",".join(f.key for f in FIELDS if f.key)
    page = {"page": "0", "pageSize": "100"}
    return [
        ("default columns", page, "150"),
        ("all columns, pageSize 1000", {"page": "0", "pageSize": "1000", "columns": all_columns}, "150"),
        (
            "amount range + type",
            page | {"columns": "amount,name", "amount:gt": "5000", "amount:lt": "20000", "type": "Credit"},
            "150",
        ),  # fmt: skip
        (
            "createdat range, sort ASC",
            page
            | {
                "columns": "createdAt,name",
                "createdat:gt": (now - timedelta(days=30)).strftime(stamp),
                "createdat:lt": (now - timedelta(days=20)).strftime(stamp),
                "sort": "createdat",
                "sortDir": "ASC",
            },
            "150",
        ),  # fmt: skip
        ("name like", page | {"columns": "name", "name:like": "hopper"}, "150"),
        ("returncode nn", page | {"columns": "returnCode,returnReason", "returncode:nn": ""}, "150"),
        ("status in", page | {"status:in": "Returned,Rejected"}, "30"),
        ("deep page 500", {"page": "500", "pageSize": "100"}, "150"),
        ("accountnumber eq", page | {"accountnumber": account_number}, "30"),
        (
            "batchnumericid null + method CRD",
            page | {"columns": "cardNumber,authorizedAt", "method": "CRD", "batchnumericid:null": ""},
            "150",
        ),  # fmt: skip
    ]


def _setup(count: int) -> dict[str, str]:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from accounts.models import Company
    from accounts.services import api_key_create
    from reporting.seeding import seed_transactions
    from transactions.models import Transaction

    call_command("migrate", verbosity=0, interactive=False)
    companies = {}
    for name in (COMPANY, OTHER):
        companies[name] = Company.objects.filter(name=name).order_by("id").first() or Company.objects.create(name=name)
    have = {name: Transaction.objects.filter(company=c).count() for name, c in companies.items()}
    seeded = any(n < count for n in have.values())
    if seeded:
        # Merchants transact at the same time, so their rows interleave by id; seeding one company after the other
        # would give the planner a layout no live table has (a backward id scan past a whole other merchant).
        with tqdm(total=2 * count, initial=sum(min(n, count) for n in have.values()), unit="txn") as bar:
            while any(n < count for n in have.values()):
                for name, company in companies.items():
                    if have[name] < count:
                        target = min(count, have[name] + SEED_STEP)
                        result = seed_transactions(company=company, count=target, progress=bar.update, analyze=False)
                        have[name] = result.total
    with connection.cursor() as cursor:
        cursor.execute("SELECT last_vacuum IS NULL AND last_autovacuum IS NULL FROM pg_stat_user_tables "
                       "WHERE relname = 'transactions_transaction'")  # fmt: skip
        if seeded or cursor.fetchone()[0]:
            # Sets the visibility map so counts can be index-only scans, as autovacuum would on a live table.
            print("vacuum analyze", file=sys.stderr, flush=True)
            for table in ("transactions_transaction", "transactions_transactionreturn", "transactions_settlement",
                          "transactions_batch", "transactions_changenotice", "transactions_transactionhold",
                          "transactions_transactionexception"):  # fmt: skip
                cursor.execute(f"VACUUM ANALYZE {table}")
    key = api_key_create(company=companies[COMPANY], name="bench-reporting")
    sample = Transaction.objects.filter(company=companies[COMPANY]).exclude(account_number=None).order_by("-id")[500]
    return {"authorization": key.authorization, "account_number": sample.account_number}


def _captured_sql(authorization: str, params: dict[str, str]) -> list[str]:
    """The SQL Django runs for this request, with parameters inlined, minus auth lookups."""
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    reset_queries()  # the DEBUG query log is capped; seeding may have filled it
    client = Client(HTTP_AUTHORIZATION=authorization)
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/reporting/transactions", params)
    if response.status_code != 200:
        raise SystemExit(f"capture failed: {response.status_code} {response.content[:300]!r}")
    # The report's own statements: its planner settings and its queries (not auth, cache or BEGIN/COMMIT).
    statements = [
        q["sql"] for q in captured.captured_queries
        if "transactions_transaction" in q["sql"] or "set_config" in q["sql"]
    ]  # fmt: skip
    if not statements:
        raise SystemExit(f"no SQL captured for {params}")
    return statements


def _production_env(env: dict[str, str]) -> dict[str, str]:
    """The server runs as in production (DEBUG=0: no query log, no debug pages) with the keys the seeded rows were
    encrypted under, which are the development keys of var/ unless the caller's environment set its own."""
    from django.conf import settings

    return env | {
        "DEBUG": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",  # plain HTTP on the loopback
        "SECRET_KEY": settings.SECRET_KEY,
        "FIELD_ENCRYPTION_KEYS": ",".join(settings.FIELD_ENCRYPTION_KEYS),
        "BLIND_INDEX_KEY": settings.BLIND_INDEX_KEY,
        "JWT_SIGNING_KEY": settings.JWT_SIGNING_KEY,
        "IDEMPOTENCY_HASH_KEY": settings.IDEMPOTENCY_HASH_KEY,
    }


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def _time_http(conn: http.client.HTTPConnection, authorization: str, params: dict[str, str], repeat: int) -> list:
    path = "/reporting/transactions?" + urlencode(params)
    samples = []
    for n in range(repeat + 3):
        started = time.perf_counter()
        conn.request("GET", path, headers={"Authorization": authorization})
        response = conn.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise SystemExit(f"HTTP {response.status}: {body[:300]!r}")
        if n >= 3:
            samples.append(elapsed)
    return samples


def _time_sql(dsn: str, statements: list[str], repeat: int) -> list[float]:
    import psycopg

    samples = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for n in range(repeat + 3):
            started = time.perf_counter()
            with conn.transaction():  # as the view reads: one transaction, planner settings local to it
                for sql in statements:
                    conn.execute(sql).fetchall()
            if n >= 3:
                samples.append((time.perf_counter() - started) * 1000)
    return samples


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _rss_kb(pid: int, field: str = "VmRSS") -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _csv_export(port: int, authorization: str, master_pid: int) -> dict[str, float]:
    workers = _children(master_pid)
    peak = {"rss": 0}
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak["rss"] = max([peak["rss"], *(_rss_kb(pid) for pid in workers)])
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    started = time.perf_counter()
    conn.request("GET", "/reporting/transactions?format=csv", headers={"Authorization": authorization})
    response = conn.getresponse()
    lines = 0
    while chunk := response.read(1 << 20):
        lines += chunk.count(b"\n")
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    rows = lines - 1
    return {
        "rows": rows,
        "seconds": round(elapsed, 1),
        "rowsPerSecond": round(rows / elapsed),
        "peakWorkerRssMB": round(peak["rss"] / 1024, 1),
        "peakWorkerHwmMB": round(max(_rss_kb(pid, "VmHWM") for pid in workers) / 1024, 1),
    }


def _wait_until_up(server: subprocess.Popen, port: int) -> None:
    for _ in range(100):
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            probe.request("GET", "/reporting/transactions")
            probe.getresponse().read()
            return
        except OSError:
            if server.poll() is not None:
                raise SystemExit("gunicorn did not start") from None
            time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--count", type=int, default=1_000_000, help="rows per company")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-csv", action="store_true")
    args = parser.parse_args()

    env = os.environ | {"DEBUG": os.environ.get("DEBUG", "1"), "DATABASE_URL": args.database_url,
                        "DJANGO_SETTINGS_MODULE": "vault.settings"}  # fmt: skip
    env.pop("REPORTING_DATABASE_URL", None)
    os.environ.update(env)
    subprocess.run(["psql", args.database_url.rsplit("/", 1)[0] + "/postgres", "-qc",
                    f"CREATE DATABASE {args.database_url.rsplit('/', 1)[1]}"], capture_output=True)  # fmt: skip
    if not args.port:
        with socket.socket() as probe_socket:
            probe_socket.bind(("127.0.0.1", 0))
            args.port = probe_socket.getsockname()[1]
    info = _setup(args.count)
    mix = _queries(info["account_number"])
    captured = {name: _captured_sql(info["authorization"], params) for name, params, _ in mix}

    server = subprocess.Popen(
        [GUNICORN, "vault.wsgi:application", "--bind", f"127.0.0.1:{args.port}", "--workers", str(args.workers),
         "--log-level", "warning", "--timeout", "600", "--access-logfile", os.devnull],
        cwd=ROOT, env=_production_env(env),
    )  # fmt: skip
    try:
        _wait_until_up(server, args.port)
        conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=120)
        results = []
        print(f"{'query':36} {'HTTP p50':>9} {'p95':>7} {'SQL p50':>8} {'p95':>7} {'ratio':>6} {'target':>7}")
        for name, params, target in mix:
            http_p50, http_p95 = _percentiles(_time_http(conn, info["authorization"], params, args.repeat))
            sql_p50, sql_p95 = _percentiles(_time_sql(args.database_url, captured[name], args.repeat))
            ratio = http_p50 / sql_p50 if sql_p50 else float("inf")
            results.append({"query": name, "httpP50": round(http_p50, 1), "httpP95": round(http_p95, 1),
                            "sqlP50": round(sql_p50, 1), "sqlP95": round(sql_p95, 1), "ratio": round(ratio, 2),
                            "targetP50": int(target), "statements": len(captured[name])})  # fmt: skip
            print(f"{name:36} {http_p50:9.1f} {http_p95:7.1f} {sql_p50:8.1f} {sql_p95:7.1f} {ratio:6.2f} "
                  f"{'<' + target + 'ms':>7}", flush=True)  # fmt: skip
        export = None if args.no_csv else _csv_export(args.port, info["authorization"], server.pid)
        if export:
            print(
                f"CSV export: {export['rows']} rows in {export['seconds']} s = {export['rowsPerSecond']} rows/s, "
                f"peak worker RSS {export['peakWorkerRssMB']} MB (VmHWM {export['peakWorkerHwmMB']} MB)"
            )
        print(json.dumps({"queries": results, "csv": export}))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
