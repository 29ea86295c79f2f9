"""Charge throughput: PUT /transactions under gunicorn (gunicorn.conf.py, as deployed) on PostgreSQL with DEBUG off,
side by side with a floor: a bare DRF view (bench/floor.py, mounted only here) that validates the same body with a
plain Serializer and inserts one transaction row behind the same API-key authentication.

Two charges, each against the floor fed the same body (issue 51):
- saved: a WEB debit of one of 50 payers' saved methods (customerUuid, paymentMethodUuid and the placeholder
  paymentDetails SPEC 4.7 asks for), what merchants send;
- one-off: a WEB debit of a bank account given in paymentDetails, no customer.

Creates (drops first) its own database, migrates it, adds a company, an API key, 50 payers with saved methods,
starts gunicorn with bench.floor_settings, drives N concurrent keep-alive clients for a fixed time against each
side in turn (ours, floor, ours, floor... over --rounds), and prints requests/s, p50/p95/p99 latency, errors and CPU
per charge, and how ours compares (target, issue 51: at least 0.9 times the floor's throughput, p95 at most 1.3
times the floor's, in one alternating run). The floor authenticates as every route does (the API key, from the
per-process copy, and the throttle), so the difference is the charge itself.

    .venv/bin/python bench/charges.py                     # 16 clients, 50 payers, 20 s a side, gunicorn.conf.py
    .venv/bin/python bench/charges.py --rounds 4 --charges saved   # the saved-method row alone
    .venv/bin/python bench/charges.py --profile var/charge.svg   # also py-spy (pip install py-spy) on our run
    .venv/bin/python bench/charges.py --cprofile var/prof --threads 1   # cProfile of each worker, our charges only
    .venv/bin/python bench/charges.py --clients 32 --duration 60 --worker-class gthread --workers 4 --threads 4
    .venv/bin/python bench/charges.py --against unthrottled --rounds 6   # what the API throttle costs (L6)

The throttle's rates are raised out of reach here, so it counts every charge (its whole cost) but refuses none.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg
from cryptography.fernet import Fernet

ROOT = Path(__file__).resolve().parent.parent
PYTHON = str(ROOT / ".venv" / "bin" / "python")
GUNICORN = str(ROOT / ".venv" / "bin" / "gunicorn")
# SPEC 4.7 rule 2: a saved-method charge still sends valid paymentDetails, which the saved method replaces.
PLACEHOLDER_DETAILS = {"name": "x", "accountType": "Checking", "accountNumber": "1111", "routingNumber": "021000021"}
CHARGES = ("saved", "one-off")


def charge_body(charge: str, rng: random.Random, pairs: list) -> str:
    """A WEB debit: of a saved method, or of a bank account given whole (one of as many accounts as payers)."""
    body: dict = {"method": "ACH", "type": "Debit", "amount": rng.randint(100, 500_000)}
    if charge == "saved":
        body["customerUuid"], body["paymentMethodUuid"] = rng.choice(pairs)
        body["paymentDetails"] = PLACEHOLDER_DETAILS
    else:
        number = str(200000000 + rng.randrange(len(pairs)))
        details = {"name": "Bench Payer", "accountType": "Checking", "accountNumber": number}
        body["paymentDetails"] = {**details, "routingNumber": "021000021"}
    return json.dumps(body)


SETUP = """
import json, sys
from accounts.services import api_key_create, company_create
from customers.models import Customer
from payments.models import PaymentMethod
from vault import crypto

count = int(sys.argv[1])
company = company_create(name="Bench Merchant", hold_over=10**9, decline_over=10**9)
key = api_key_create(company=company, name="bench")
customers = Customer.objects.bulk_create(
    Customer(company=company, first_name="Bench", last_name=f"Payer{n}", account_holder_type="consumer")
    for n in range(count)
)
methods = []
for n, customer in enumerate(customers):
    number = str(100000000 + n)
    methods.append(PaymentMethod(
        company=company, customer=customer, account_type="Checking", account_number=number,
        account_hash=crypto.account_pair_hash("021000021", number),
        account_number_hash=crypto.account_number_hash(number), last_four=number[-4:],
        routing_number="021000021", is_default=True,
    ))
PaymentMethod.objects.bulk_create(methods)
print(json.dumps({
    "authorization": key.authorization,
    "pairs": [[str(m.customer.uuid), str(m.uuid)] for m in methods],
}))
"""


def bench_env(database_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DEBUG="0",
        DATABASE_URL=database_url,
        SECRET_KEY=secrets.token_urlsafe(48),
        FIELD_ENCRYPTION_KEYS=Fernet.generate_key().decode(),
        BLIND_INDEX_KEY=secrets.token_urlsafe(48),
        JWT_SIGNING_KEY=secrets.token_urlsafe(48),
        IDEMPOTENCY_HASH_KEY=secrets.token_urlsafe(48),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",  # plain HTTP on the loopback
        API_THROTTLE_RATE_PER_CREDENTIAL="1000000000/min",
        API_THROTTLE_RATE_PER_COMPANY="1000000000/min",
        LOG_LEVEL="ERROR",
        DJANGO_SETTINGS_MODULE="bench.floor_settings",
    )
    return env


def recreate_database(server_url: str, name: str) -> None:
    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def prepare(env: dict[str, str], customers: int) -> dict:
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    out = subprocess.run(
        [PYTHON, "manage.py", "shell", "-c", f"import sys; sys.argv = ['', '{customers}']\n{SETUP}"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def analyze(args) -> None:
    """What autoanalyze does on a production server, here before each window: this machine's PostgreSQL runs with
    autovacuum off, so without it the planner keeps the empty tables' estimates, and the plans that workers cache
    scan a merchant's every transaction for a charge's duplicate and returned-account checks (1.2 ms a charge at
    2,000 rows, growing with each charge, where the index plan takes 0.08 ms)."""
    with psycopg.connect(f"{args.pg}/{args.database}", autocommit=True) as conn:
        conn.execute("ANALYZE")


def free_port() -> int:
    # A fixed default port collides with other benches on a shared machine; let the kernel pick one.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _cpu_ticks() -> dict[int, tuple[int, int]]:
    """pid -> (process group, user + system clock ticks) for every live process."""
    ticks = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields after "pid (comm)": state ppid pgrp ... utime (11) stime (12)
        ticks[int(stat.parent.name)] = (int(fields[2]), int(fields[11]) + int(fields[12]))
    return ticks


def database_backend_pids(server_url: str, name: str) -> set[int]:
    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,)).fetchall()
    return {pid for (pid,) in rows}


def cpu_seconds(*, pgid: int, pids: set[int]) -> tuple[float, dict[int, float]]:
    """(CPU seconds of gunicorn's process group, {pid: CPU seconds} of the given live PostgreSQL backends) so far."""
    ticks = _cpu_ticks()
    app = sum(used for group, used in ticks.values() if group == pgid)
    clock = os.sysconf("SC_CLK_TCK")
    return app / clock, {pid: ticks[pid][1] / clock for pid in pids if pid in ticks}


def server_shape(args) -> str:
    """'2 workers x 4 threads' as gunicorn will run: the flags given, else gunicorn.conf.py's environment."""
    workers = args.workers or int(os.environ.get("WEB_CONCURRENCY", "2"))
    threads = args.threads or int(os.environ.get("GUNICORN_THREADS", "4"))
    return f"{workers} workers x {threads} threads" + (f" ({args.worker_class})" if args.worker_class else "")


def start_server(env: dict[str, str], args) -> subprocess.Popen:
    """gunicorn as deployed: gunicorn.conf.py (WEB_CONCURRENCY workers of GUNICORN_THREADS threads, its worker
    classes), or with --cprofile bench/gunicorn_cprofile.py, which is the same plus the profiler. Only what is asked
    on the command line overrides it."""
    config = str(ROOT / ("bench/gunicorn_cprofile.py" if args.cprofile else "gunicorn.conf.py"))
    command = [GUNICORN, "--config", config, "--bind", f"127.0.0.1:{args.port}", "--log-level", "warning"]
    # gunicorn.conf.py's access log format, as in production, written where it costs no terminal
    command += ["--access-logfile", os.devnull, "--backlog", "2048"]
    if args.workers:
        command += ["--workers", str(args.workers)]
    if args.worker_class:
        command += ["--worker-class", args.worker_class]
    env = dict(env)
    if args.threads:
        env["GUNICORN_THREADS"] = str(args.threads)  # gunicorn.conf.py picks its worker class by it
    if args.cprofile:
        env["BENCH_CPROFILE_DIR"] = str(Path(args.cprofile).resolve())
    server = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited with {server.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=2)
            conn.request("GET", f"/transactions/{uuid.uuid4()}")
            conn.getresponse().read()
            return server
        except OSError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not come up")


def client_thread(port, path, charge, authorization, pairs, start_at, stop_at, latencies, errors, lock) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": authorization, "Content-Type": "application/json", "Connection": "keep-alive"}
    rng = random.Random()
    local_latencies: list[float] = []
    local_errors = 0
    while time.monotonic() < start_at:
        time.sleep(0.001)
    while (now := time.monotonic()) < stop_at:
        body = charge_body(charge, rng, pairs)
        began = time.perf_counter()
        try:
            conn.request("PUT", path, body, headers)
            response = conn.getresponse()
            response.read()
            ok = response.status == 201
        except (OSError, http.client.HTTPException):
            ok = False
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        if ok:
            local_latencies.append(time.perf_counter() - began)
        else:
            local_errors += 1
        del now
    conn.close()
    with lock:
        latencies.extend(local_latencies)
        errors.append(local_errors)


def client_process(port, path, charge, authorization, pairs, threads, start_at, stop_at, queue) -> None:
    latencies: list[float] = []
    errors: list[int] = []
    lock = threading.Lock()
    workers = [
        threading.Thread(
            target=client_thread,
            args=(port, path, charge, authorization, pairs, start_at, stop_at, latencies, errors, lock),
        )
        for _ in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    queue.put((latencies, sum(errors)))


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _clients(args, setup: dict, path: str, charge: str, start_at: float, stop_at: float, queue) -> list:
    """The client processes (not started) that load `path` between start_at and stop_at."""
    processes = max(1, min(args.client_processes, args.clients))
    per_process = [args.clients // processes + (1 if n < args.clients % processes else 0) for n in range(processes)]
    return [
        multiprocessing.Process(
            target=client_process,
            args=(args.port, path, charge, setup["authorization"], setup["pairs"], n, start_at, stop_at, queue),
        )
        for n in per_process
    ]


def _profiler(server: subprocess.Popen, profile: str, seconds: float) -> subprocess.Popen:
    """py-spy over gunicorn's master and workers for the measured window (pip install py-spy)."""
    return subprocess.Popen(
        [str(ROOT / ".venv" / "bin" / "py-spy"), "record", "--format",
         "speedscope" if profile.endswith(".json") else "flamegraph", "-o", profile, "--duration",
         str(int(seconds)), "--rate", "200", "--subprocesses", "--pid", str(server.pid)],
    )  # fmt: skip


def _figures(args, path: str, charge: str, latencies: list[float], errors: int, app_cpu: float, db_cpu: float) -> dict:
    return {
        "path": path,
        "charge": charge,
        "clients": args.clients,
        "payers": args.customers,
        "workers": args.server,
        "seconds": args.duration,
        "rounds": args.rounds,
        "requests": len(latencies),
        "requestsPerSecond": round(len(latencies) / args.duration, 1),
        "p50Ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "p95Ms": round(percentile(latencies, 0.95) * 1000, 1),
        "p99Ms": round(percentile(latencies, 0.99) * 1000, 1),
        "errors": errors,
        # Less load-dependent than requests/s: what one charge costs the app servers and the database.
        "appCpuMsPerCharge": round(app_cpu * 1000 / len(latencies), 2) if latencies else None,
        "dbCpuMsPerCharge": round(db_cpu * 1000 / len(latencies), 2) if latencies else None,
    }


def measure(args, setup: dict, server, path: str, charge: str, seconds: float, profile: str | None = None):
    """Warm-up, then `seconds` of load on `path`: (latencies, errors, app CPU seconds, database CPU seconds)."""
    queue: multiprocessing.Queue = multiprocessing.Queue()
    warm = _clients(args, setup, path, charge, time.monotonic() + 1.0, time.monotonic() + 1.0 + args.warmup, queue)
    for proc in warm:
        proc.start()
    for _ in warm:
        queue.get()
    for proc in warm:
        proc.join()
    analyze(args)

    start_at = time.monotonic() + 1.0
    procs = _clients(args, setup, path, charge, start_at, start_at + seconds, queue)
    for proc in procs:
        proc.start()
    spy = _profiler(server, profile, seconds) if profile else None
    while time.monotonic() < start_at:
        time.sleep(0.001)
    backends = database_backend_pids(args.pg, args.database)  # persistent (CONN_MAX_AGE), opened in warm-up
    cpu_before = cpu_seconds(pgid=server.pid, pids=backends)
    latencies: list[float] = []
    errors = 0
    for _ in procs:
        got, failed = queue.get()
        latencies.extend(got)
        errors += failed
    # A backend opened during the window (a connection past its CONN_MAX_AGE is replaced) counts whole.
    cpu_after = cpu_seconds(pgid=server.pid, pids=backends | database_backend_pids(args.pg, args.database))
    for proc in procs:
        proc.join()
    if spy:
        spy.wait(timeout=120)
    # A backend that closed during the window is left out: bench.floor_settings keeps connections for good.
    database = sum(used - cpu_before[1].get(pid, 0.0) for pid, used in cpu_after[1].items())
    return latencies, errors, cpu_after[0] - cpu_before[0], database


THROUGHPUT_TARGET, P95_TARGET = 0.9, 1.3  # issue 51: ours against the authenticated floor, the same body
SIDES = {"floor": "/bench/floor/transactions", "unthrottled": "/bench/unthrottled/transactions"}


def measure_sides(args, setup: dict, server: subprocess.Popen) -> dict[str, tuple[dict, dict]]:
    """For each charge, ours then the floor, `args.rounds` times in turn (each window duration/rounds seconds), so a
    change in the machine's other load falls on both sides alike; figures of all windows of a side together."""
    paths = {"ours": "/transactions", args.against: SIDES[args.against]}
    totals = {(charge, side): ([], 0, 0.0, 0.0) for charge in args.charges for side in paths}
    for round_number in range(args.rounds):
        for charge in args.charges:
            for side, path in paths.items():
                first = side == "ours" and round_number == 0 and charge == args.charges[0]
                profile = args.profile if first else None
                window = args.duration / args.rounds
                latencies, errors, app, db = measure(args, setup, server, path, charge, window, profile)
                kept = totals[charge, side]
                totals[charge, side] = (kept[0] + latencies, kept[1] + errors, kept[2] + app, kept[3] + db)
    return {
        charge: tuple(_figures(args, paths[side], charge, *totals[charge, side]) for side in paths)
        for charge in args.charges
    }


def _line(label: str, figures: dict) -> str:
    return (
        f"{label:17} {figures['requestsPerSecond']:8.1f} charges/s  p50 {figures['p50Ms']} ms  p95 {figures['p95Ms']}"
        f" ms  p99 {figures['p99Ms']} ms  errors {figures['errors']}  CPU/charge: app {figures['appCpuMsPerCharge']}"
        f" ms, PostgreSQL {figures['dbCpuMsPerCharge']} ms"
    )


def _verdict(ours: dict, floor: dict) -> dict:
    throughput = ours["requestsPerSecond"] / floor["requestsPerSecond"] if floor["requestsPerSecond"] else 0
    p95 = ours["p95Ms"] / floor["p95Ms"] if floor["p95Ms"] else float("inf")
    # What holds when other programs load the machine: the CPU a charge costs the app and PostgreSQL together.
    cpu = [
        side["appCpuMsPerCharge"] + side["dbCpuMsPerCharge"] if side["appCpuMsPerCharge"] else 0
        for side in (ours, floor)
    ]
    return {
        "throughputRatio": round(throughput, 2),
        "p95Ratio": round(p95, 2),
        "cpuPerChargeRatio": round(cpu[0] / cpu[1], 3) if cpu[1] else None,
    }


def _load(args: argparse.Namespace) -> str:
    """The machine's 1-minute load average before and after the run: p95 follows others' load on the machine."""
    return f"{args.load_before:.1f} -> {os.getloadavg()[0]:.1f}"


def print_report(args: argparse.Namespace, results: dict) -> None:
    """Each charge's two rows, its ratios against the targets, and the whole as one JSON line."""
    print(
        f"({args.clients} clients, {args.customers} payers, gunicorn {args.server}, {args.duration:g} s a side"
        f"{f' in {args.rounds} alternating rounds' if args.rounds > 1 else ''}; load average {_load(args)})"
    )
    report = {}
    for charge, (ours, floor) in results.items():
        print(_line(f"ours ({charge})", ours))
        print(_line(f"{args.against} ({charge})", floor))
        verdict = _verdict(ours, floor)
        report[charge] = {"ours": ours, args.against: floor, **verdict}
        if args.against == "unthrottled":
            cost = ours["p50Ms"] / floor["p50Ms"] - 1 if floor["p50Ms"] else float("nan")
            print(f"  API throttle cost: p50 {cost:+.1%} (target < 5%: {'met' if cost < 0.05 else 'MISSED'})")
            continue
        throughput, p95 = verdict["throughputRatio"], verdict["p95Ratio"]
        print(
            f"  ours/floor ({charge}): throughput {throughput:.2f} (target >= {THROUGHPUT_TARGET}: "
            f"{'met' if throughput >= THROUGHPUT_TARGET else 'MISSED'}), "
            f"p95 {p95:.2f} (target <= {P95_TARGET}: {'met' if p95 <= P95_TARGET else 'MISSED'}), "
            f"CPU a charge (app + PostgreSQL) {verdict['cpuPerChargeRatio']}x"
        )
    print(json.dumps(report))
    sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--duration", type=float, default=20.0, help="measured seconds of each side of each charge")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before measuring")
    parser.add_argument(
        "--rounds", type=int, default=2, help="alternate ours and the floor this many times (duration split over them)"
    )
    parser.add_argument(
        "--charges", default=",".join(CHARGES), help=f"which charges, in order: {', '.join(CHARGES)} (comma list)"
    )
    # Unset: gunicorn.conf.py's (WEB_CONCURRENCY, GUNICORN_THREADS and the worker class it picks by them).
    parser.add_argument("--workers", type=int, help="gunicorn workers (default gunicorn.conf.py's)")
    parser.add_argument("--threads", type=int, help="threads per worker (1: its sync worker class)")
    parser.add_argument("--worker-class", help="override gunicorn.conf.py's worker class")
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--customers", type=int, default=50, help="payers, each with a saved method")
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432", help="PostgreSQL server URL")
    parser.add_argument("--database", default="bench_charges")
    parser.add_argument(
        "--against", default="floor", choices=sorted(SIDES), help="floor, or our charge without the API throttle"
    )
    parser.add_argument("--profile", help="write a py-spy flame graph (.svg) or speedscope (.json) of our run")
    parser.add_argument("--cprofile", help="a folder: each worker's cProfile of our charges (PUT /transactions)")
    args = parser.parse_args()
    args.charges = [charge.strip() for charge in args.charges.split(",")]
    if not set(args.charges) <= set(CHARGES):
        parser.error(f"--charges: each one of {', '.join(CHARGES)}")

    recreate_database(args.pg, args.database)
    env = bench_env(f"{args.pg}/{args.database}")
    setup = prepare(env, args.customers)
    args.port = args.port or free_port()
    args.server = server_shape(args)
    server = start_server(env, args)
    args.load_before = os.getloadavg()[0]
    try:
        results = measure_sides(args, setup, server)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)

    print_report(args, results)


if __name__ == "__main__":
    main()
