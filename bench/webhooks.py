"""Webhook delivery: events/s delivered to a local receiver by 4 `run_worker` processes, and the p95 time from
commit to delivery when events are committed at a steady 100/s.

Uses its own PostgreSQL database (dropped and recreated) and a receiver on 127.0.0.1 (a free port) that
answers 200 at once and notes when each `webhook-id` arrives. Prints one line per figure.

    .venv/bin/python bench/webhooks.py --database-url postgres://postgres@127.0.0.1:5432/bench_i16_webhooks
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from uuid import uuid4

ROOT = Path(__file__).resolve().parent.parent


class Receiver:
    """A minimal HTTP/1.1 keep-alive server on asyncio: reads each request, answers 200, records arrival."""

    def __init__(self) -> None:
        self.arrivals: dict[str, float] = {}
        self.requests = 0
        self.port = 0
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length, webhook_id = 0, ""
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    name = name.strip().lower()
                    if name == b"content-length":
                        length = int(value)
                    elif name == b"webhook-id":
                        webhook_id = value.strip().decode()
                await reader.readexactly(length)
                self.requests += 1
                self.arrivals.setdefault(webhook_id, time.time())
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    def start(self) -> None:
        def run() -> None:
            self._loop = asyncio.new_event_loop()
            server = self._loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
            self.port = server.sockets[0].getsockname()[1]
            self._ready.set()
            self._loop.run_forever()

        threading.Thread(target=run, daemon=True).start()
        self._ready.wait()


def _prepare_database(url: str, var_dir: str) -> None:
    import psycopg

    os.environ.update({"DEBUG": "1", "VAR_DIR": var_dir, "LOG_LEVEL": "WARNING", "WEBHOOK_ALLOW_PRIVATE_URLS": "1"})
    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    os.environ["DATABASE_URL"] = url


def _wait_for(receiver: Receiver, wanted: set[str], timeout: float) -> float:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if wanted <= receiver.arrivals.keys():
            return max(receiver.arrivals[key] for key in wanted)
        time.sleep(0.01)
    missing = len(wanted - receiver.arrivals.keys())
    raise SystemExit(f"{missing} events not delivered within {timeout} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", required=True, help="PostgreSQL database to drop and recreate")
    parser.add_argument("--events", type=int, default=10000, help="backlog for the throughput figure")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--rate", type=int, default=100, help="events/s for the latency figure")
    parser.add_argument("--seconds", type=int, default=20, help="duration of the latency run")
    options = parser.parse_args()

    _prepare_database(options.database_url, tempfile.mkdtemp(prefix="bench-webhooks-"))
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from accounts.services import company_create
    from events.services import endpoint_create

    call_command("migrate", verbosity=0)
    receiver = Receiver()
    receiver.start()
    company = company_create(name="Bench")
    endpoint_create(company=company, url=f"http://127.0.0.1:{receiver.port}/hooks", event_types=["*"])
    objects = [uuid4() for _ in range(500)]
    # Workers run as in production (DEBUG=0: no query log), with the dev secrets this run generated.
    worker_env = {
        **os.environ,
        **json.loads((Path(os.environ["VAR_DIR"]) / "dev-secrets.json").read_text()),
        "DEBUG": "0",
        "ALLOWED_HOSTS": "localhost",
    }

    workers = [
        subprocess.Popen([sys.executable, "manage.py", "run_worker", "--interval", "0.1"], cwd=ROOT, env=worker_env)
        for _ in range(options.workers)
    ]
    try:
        time.sleep(3)  # let the workers start
        _measure_throughput(options, receiver, company, objects)
        _measure_latency(options, receiver, company, objects)
        print(f"receiver    {receiver.requests} requests for {len(receiver.arrivals)} distinct events")
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(30)


def _measure_throughput(options: argparse.Namespace, receiver: Receiver, company, objects: list) -> None:
    """A backlog committed at once, drained by the workers."""
    from django.db import transaction

    from events.outbox import EventDraft, events_record

    with transaction.atomic():
        events = events_record(
            [
                EventDraft(company.pk, "transaction.settled", objects[n % len(objects)], {"n": n})
                for n in range(options.events)
            ]
        )
    committed = time.time()
    last = _wait_for(receiver, {str(event.uuid) for event in events}, timeout=600)
    elapsed = last - committed
    print(
        f"throughput  {options.events} events, {options.workers} workers: {elapsed:6.2f} s  "
        f"{options.events / elapsed:7.0f} events/s delivered"
    )


def _measure_latency(options: argparse.Namespace, receiver: Receiver, company, objects: list) -> None:
    """One event per transaction at a steady rate; commit to arrival at the receiver."""
    from django.db import transaction

    from events.outbox import event_record

    commits: dict[str, float] = {}
    interval = 1 / options.rate
    start = time.time()
    for n in range(options.rate * options.seconds):
        time.sleep(max(0.0, start + n * interval - time.time()))
        with transaction.atomic():
            event = event_record(
                company_id=company.pk, type="transaction.created", object_uuid=objects[n % len(objects)], data={}
            )
        commits[str(event.uuid)] = time.time()
    _wait_for(receiver, set(commits), timeout=120)
    latencies = sorted(receiver.arrivals[key] - at for key, at in commits.items())
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    p50 = statistics.median(latencies)
    print(
        f"latency     {len(commits)} events at {options.rate}/s: p50 {p50 * 1000:5.0f} ms  "
        f"p95 {p95 * 1000:5.0f} ms  max {latencies[-1] * 1000:5.0f} ms (commit to delivery)"
    )


if __name__ == "__main__":
    main()
