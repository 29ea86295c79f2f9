"""CPU a charge costs, ours against the floor, in one process: the same seed and bodies as bench/charges.py, each
request handed to the WSGI application directly (no socket, no gunicorn) on one thread and one PostgreSQL
connection, in alternating blocks. It counts what each side costs, not how fast it answers: the thread's CPU time
(time.thread_time_ns) and the PostgreSQL backend's (/proc/<pid>/schedstat, nanoseconds on a CPU), so another
program's load on the machine changes neither much. bench/charges.py is the throughput and latency under
concurrency; this is the figure to compare two versions of the charge by on a shared machine.

    .venv/bin/python bench/charge_cpu.py                          # 12 blocks of 200 charges a side
    .venv/bin/python bench/charge_cpu.py --cprofile var/cpu       # also ours.prof and floor.prof (CPU time)
    .venv/bin/python bench/charge_cpu.py --statements 12          # and each side's statements (pg_stat_statements)

--statements needs pg_stat_statements loaded by the server (shared_preload_libraries) and its extension created.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.charges import bench_env, charge_body, prepare, recreate_database

SIDES = {"ours": "/transactions", "floor": "/bench/floor/transactions"}


def backend_ns(pid: int) -> int:
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])


def wsgi_environ(path: str, body: bytes, authorization: str) -> dict:
    return {
        "REQUEST_METHOD": "PUT",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_AUTHORIZATION": authorization,
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=20, help="alternating blocks a side")
    parser.add_argument("--block-size", type=int, default=100, help="charges a block")
    parser.add_argument("--warmup", type=int, default=300, help="charges a side before the first block")
    parser.add_argument("--charge", default="saved", choices=("saved", "one-off"))
    parser.add_argument("--customers", type=int, default=50)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument("--database", default="bench_charge_cpu")
    parser.add_argument(
        "--reuse", help="a file: keep the seeded database's settings there, and reuse that database when it exists"
    )
    parser.add_argument("--cprofile", help="a folder: ours.prof and floor.prof, each side's CPU-time cProfile")
    parser.add_argument("--statements", type=int, default=0, help="print each side's N costliest statements")
    return parser.parse_args()


def _seeded(args: argparse.Namespace) -> tuple[dict[str, str], dict]:
    """The bench's environment and seed (bench/charges.py's), or those --reuse kept of an earlier run's database."""
    kept = Path(args.reuse) if args.reuse else None
    if kept is not None and kept.exists():  # the database a run with this file made (its keys decrypt its rows)
        return tuple(json.loads(kept.read_text()))
    recreate_database(args.pg, args.database)
    env = bench_env(f"{args.pg}/{args.database}")
    setup = prepare(env, args.customers)
    if kept is not None:
        kept.write_text(json.dumps([env, setup]))
    return env, setup


def main() -> None:
    args = _arguments()
    env, setup = _seeded(args)
    os.environ.update(env)
    from django.db import connection

    from config.wsgi import application

    rng = random.Random(51)
    started: list = []

    def request(path: str) -> None:
        body = charge_body(args.charge, rng, setup["pairs"]).encode()
        response = application(wsgi_environ(path, body, setup["authorization"]), lambda s, h, e=None: started.append(s))
        b"".join(response)
        response.close()
        status = started.pop()
        if not status.startswith("201"):
            raise SystemExit(f"{path}: {status}")

    for _ in range(args.warmup):  # imports, caches, the connection, and rows enough for the planner
        for path in SIDES.values():
            request(path)
    _report(args, *_measured(args, request, connection))
    if args.cprofile:  # after the measured blocks: the profiler's own cost would swell their figures
        _profiled(args, request)


def _measured(args: argparse.Namespace, request, connection) -> tuple[dict, dict, dict]:
    """Each side's CPU a charge in every block, app and PostgreSQL (ms), and its statements when asked."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    app: dict[str, list[float]] = {side: [] for side in SIDES}
    database: dict[str, list[float]] = {side: [] for side in SIDES}
    per_statement: dict[str, dict] = {side: {} for side in SIDES}
    for _ in range(args.blocks):
        for side, path in SIDES.items():
            _analyze(connection)  # as bench/charges.py before each window: autovacuum is off here
            if args.statements:
                _statements_reset(connection)
            cpu, db = time.thread_time_ns(), backend_ns(pid)
            for _ in range(args.block_size):
                request(path)
            app[side].append((time.thread_time_ns() - cpu) / args.block_size / 1e6)
            database[side].append((backend_ns(pid) - db) / args.block_size / 1e6)
            if args.statements:
                _statements_add(connection, per_statement[side], args.block_size)
    return app, database, per_statement


def _profiled(args: argparse.Namespace, request) -> None:
    Path(args.cprofile).mkdir(parents=True, exist_ok=True)
    for side, path in SIDES.items():
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        for _ in range(args.block_size):
            request(path)
        profile.disable()
        profile.dump_stats(Path(args.cprofile) / f"{side}.prof")


def _analyze(connection) -> None:
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _statements_reset(connection) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        cursor.execute("SELECT pg_stat_statements_reset()")
    return True


def _statements_add(connection, into: dict, charges: int) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT query, calls, total_exec_time, shared_blks_hit + shared_blks_read + shared_blks_dirtied"
            " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND query NOT LIKE '%pg_stat_statements%'"
        )
        into["charges"] = into.get("charges", 0) + charges
        for query, calls, ms, blocks in cursor.fetchall():
            kept = into.setdefault(query, [0, 0.0, 0])
            kept[0] += calls
            kept[1] += ms
            kept[2] += blocks


def _report(args, app, database, per_statement) -> None:
    print(f"({args.blocks} alternating blocks of {args.block_size} {args.charge} charges a side, one thread)")
    figures = {}
    for side in SIDES:
        figures[side] = {
            "appCpuMs": round(statistics.median(app[side]), 3),
            "dbCpuMs": round(statistics.median(database[side]), 3),
        }
        figures[side]["totalCpuMs"] = round(figures[side]["appCpuMs"] + figures[side]["dbCpuMs"], 3)
        print(
            f"{side:6} CPU a charge (median of blocks): app {figures[side]['appCpuMs']:.3f} ms "
            f"({min(app[side]):.2f}-{max(app[side]):.2f}), PostgreSQL {figures[side]['dbCpuMs']:.3f} ms "
            f"({min(database[side]):.2f}-{max(database[side]):.2f}), both {figures[side]['totalCpuMs']:.3f} ms"
        )
    # Each block of ours against the floor's next to it, then the median: a drift in the machine's speed falls on both.
    both = {side: [a + d for a, d in zip(app[side], database[side], strict=True)] for side in SIDES}
    ratio = {
        name: round(statistics.median(o / f for o, f in zip(kept["ours"], kept["floor"], strict=True)), 3)
        for name, kept in (("appCpuMs", app), ("dbCpuMs", database), ("totalCpuMs", both))
    }
    print(
        f"ours/floor (median of paired blocks): app {ratio['appCpuMs']:.3f}x, PostgreSQL {ratio['dbCpuMs']:.3f}x, "
        f"both {ratio['totalCpuMs']:.3f}x"
    )
    for side, rows in per_statement.items():
        if not rows or not args.statements:
            continue
        print(f"{side}: statements by execution time a charge (us a charge, calls a charge, buffers a call)")
        charges = rows.pop("charges")
        ranked = sorted(rows.items(), key=lambda item: -item[1][1])[: args.statements]
        for query, (calls, ms, blocks) in ranked:
            print(
                f"  {ms * 1000 / charges:8.1f} us  {calls / charges:5.2f}  {blocks / max(calls, 1):6.1f}  {query[:150]}"
            )
    print(json.dumps({"charge": args.charge, **figures, "ratio": ratio}))


if __name__ == "__main__":
    main()
