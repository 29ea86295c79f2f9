"""Faults proven (issue 25, item 7), the short form of the soak harness: the service as production runs it
(gunicorn with gunicorn.conf.py, `run_worker` under deploy/restart-always.sh) on a throwaway PostgreSQL cluster
that .ci/faults.sh starts, a webhook receiver on loopback, and a few charges a second. Faults, in turn: a restart
of the cluster, a kill -9 of its postmaster, a SIGKILL of the worker. After each one the worker must deliver a
charge made after it, by itself; at the end every charge answered 2xx exists exactly once, every event reached
the receiver, and the worker process survived both database faults (the supervisor restarted it only after its
own SIGKILL). Skipped unless .ci/faults.sh runs it (FAULTS_PG_PORT, FAULTS_PG_DATA)."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.events.conftest import Receiver, serving

pytestmark = pytest.mark.skipif(
    not os.environ.get("FAULTS_PG_PORT"), reason="needs the throwaway PostgreSQL cluster of .ci/faults.sh"
)

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PG_BIN = Path(os.environ.get("FAULTS_PG_BIN", "/usr/lib/postgresql/15/bin"))
CHARGES_PER_SECOND = 4
DELIVERY_WAIT_SECONDS = 45


def _as_postgres(*command: str) -> list[str]:
    """The cluster's own user runs its commands (PostgreSQL refuses root)."""
    return ["runuser", "-u", "postgres", "--", *command] if os.getuid() == 0 else list(command)


class Cluster:
    def __init__(self) -> None:
        self.port = int(os.environ["FAULTS_PG_PORT"])
        self.data = os.environ["FAULTS_PG_DATA"]
        self.log = os.environ.get("FAULTS_PG_LOG", os.devnull)

    def url(self, database: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{database}"

    def pg_ctl(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(  # noqa: S603 - fixed arguments
            _as_postgres(str(PG_BIN / "pg_ctl"), "-D", self.data, "-l", self.log, "-w", "-t", "60", *args),
            capture_output=True,
            text=True,
            timeout=90,
        )

    def restart(self) -> None:
        result = self.pg_ctl("-m", "fast", "restart")
        assert result.returncode == 0, result.stderr

    def kill_postmaster(self) -> None:
        """kill -9 of the postmaster, then a start (crash recovery) once its orphaned backends are gone."""
        postmaster = int(Path(self.data, "postmaster.pid").read_text().split()[0])
        os.kill(postmaster, signal.SIGKILL)
        for _ in range(60):
            result = self.pg_ctl("start")
            if result.returncode == 0:
                return
            time.sleep(0.5)
        raise AssertionError(f"the cluster did not start again: {result.stderr}")

    def query(self, database: str, sql: str, params: tuple = ()) -> list[tuple]:
        with psycopg.connect(self.url(database), autocommit=True) as conn:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []


class Stack:
    """gunicorn and the supervised worker on `database`, with their logs under `out`."""

    def __init__(self, cluster: Cluster, database: str, out: Path) -> None:
        self.out = out
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "DEBUG": "1",
            "VAR_DIR": str(out / "var"),
            "DATABASE_URL": cluster.url(database),
            "WEBHOOK_ALLOW_PRIVATE_URLS": "1",
            "WEBHOOK_TIMEOUT_SECONDS": "2",
            "WEBHOOK_LEASE_SECONDS": "8",
            "WORKER_BACKOFF_MAX_SECONDS": "2",
            "TASK_LEASE_SECONDS": "20",
            "RESTART_SEC": "1",
        }
        self.processes: list[subprocess.Popen] = []

    def manage(self, *args: str) -> dict:
        result = subprocess.run(  # noqa: S603 - our own manage.py
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=300
        )
        assert result.returncode == 0, result.stderr
        lines = result.stdout.strip().splitlines()
        return json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}

    def start(self) -> str:
        gunicorn_log = self.out / "gunicorn.log"
        self.processes.append(
            subprocess.Popen(  # noqa: S603 - fixed arguments
                [str(BIN / "gunicorn"), "--config", "gunicorn.conf.py", "--bind", "127.0.0.1:0", "--workers", "2"],
                cwd=ROOT,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=gunicorn_log.open("wb"),
            )
        )
        self.supervisor = subprocess.Popen(  # noqa: S603 - fixed arguments
            [str(ROOT / "deploy" / "restart-always.sh"), sys.executable, "manage.py", "run_worker", "--interval", "0.1"]
            + ["--sweep-interval", "0.5"],
            cwd=ROOT,
            env=self.env,
            stdout=(self.out / "worker.log").open("wb"),
            stderr=subprocess.STDOUT,
        )
        self.processes.append(self.supervisor)
        port = _wait(lambda: re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", gunicorn_log.read_text()), 60)
        assert port, gunicorn_log.read_text()
        return f"http://127.0.0.1:{port.group(1)}"

    def worker_pid(self) -> int | None:
        """The supervisor's run_worker child, read from /proc."""
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
                command = (stat.parent / "cmdline").read_bytes()
            except (OSError, IndexError, ValueError):
                continue
            if parent == self.supervisor.pid and b"run_worker" in command:
                return int(stat.parent.name)
        return None

    def worker_log(self) -> str:
        return (self.out / "worker.log").read_text(errors="replace")

    def stop(self) -> None:
        for process in self.processes:
            process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait(condition: Callable, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := condition():
            return found
        time.sleep(0.2)
    return None


class Load:
    """Card charges at CHARGES_PER_SECOND, each under its own Idempotency-Key and retried with it until it is
    answered 2xx (as a client that lost an answer does); `answered` maps key -> the uuid the client was told."""

    def __init__(self, base: str, authorization: str) -> None:
        self.client = httpx.Client(base_url=base, headers={"Authorization": authorization}, timeout=10)
        self.answered: dict[str, str] = {}
        self.failures = 0
        self.wrong: list[str] = []  # answers other than 2xx and 503 (a 500 above all)
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.numbers = itertools.count(1)

    def charge(self, key: str) -> str | None:
        body = {
            "method": "CRD",
            "type": "Debit",
            "amount": 100 + next(self.numbers),
            "paymentDetails": {"name": "Ada Lovelace", "cardNumber": "4111111111111111", "expirationDate": "12/39"},
        }
        for _ in range(40):
            try:
                response = self.client.put("/transactions", json=body, headers={"Idempotency-Key": key})
            except httpx.HTTPError:
                response = None
            if response is not None and response.status_code < 300:
                self.answered[key] = response.json()["data"]["uuid"]
                return self.answered[key]
            self.failures += 1
            if response is not None and response.status_code != 503:
                self.wrong.append(f"{response.status_code} {response.text[:200]}")
            time.sleep(0.5)
        return None

    def _run(self) -> None:
        while self.running:
            self.charge(f"load-{uuid.uuid4()}")
            time.sleep(1 / CHARGES_PER_SECOND)

    def stop(self) -> None:
        self.running = False
        self.thread.join(60)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with serving(Receiver()) as receiver:
        yield receiver


def _answers(url: str, authorization: str) -> bool:
    try:
        return httpx.get(url, headers={"Authorization": authorization}, timeout=10).status_code == 200
    except httpx.HTTPError:
        return False


def _received_ids(receiver: Receiver) -> set[str]:
    with receiver.lock:
        return {request.headers["webhook-id"] for request in receiver.received}


def test_charges_and_webhooks_survive_a_restart_a_kill_9_and_a_killed_worker(tmp_path, receiver):
    cluster = Cluster()
    database = f"faults_{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    cluster.query("postgres", f'CREATE DATABASE "{database}"')
    stack = Stack(cluster, database, tmp_path)
    stack.manage("migrate", "--noinput")
    company = stack.manage("create_company", "--name", "Faults")["companyUuid"]
    authorization = stack.manage("create_api_key", "--company", company)["authorization"]
    base = stack.start()
    migrated = time.monotonic()
    load = None
    try:
        assert _wait(lambda: _answers(f"{base}/customers", authorization), 120), "gunicorn never answered"
        created = httpx.post(
            f"{base}/webhooks/endpoints",
            json={"url": receiver.url, "eventTypes": ["*"]},
            headers={"Authorization": authorization},
        )
        assert created.status_code == 201, created.text
        load = Load(base, authorization)
        load.thread.start()
        first_worker = _wait(stack.worker_pid, 30)
        assert first_worker

        def delivered_after(fault: str) -> None:
            """A charge made now reaches the receiver through the worker, with nobody's help."""
            charged = load.charge(f"after-{fault}")
            assert charged, f"no charge answered 2xx after {fault}"
            event = _wait(
                lambda: cluster.query(
                    database, "SELECT uuid::text FROM events_event WHERE object_uuid = %s", (charged,)
                ),
                30,
            )
            assert event, f"no event for the charge made after {fault}"
            assert _wait(lambda: event[0][0] in _received_ids(receiver), DELIVERY_WAIT_SECONDS), (
                f"the worker delivered nothing after {fault}:\n{stack.worker_log()[-3000:]}"
            )

        delivered_after("start")
        time.sleep(2)
        cluster.restart()
        delivered_after("pg_restart")
        time.sleep(2)
        cluster.kill_postmaster()
        delivered_after("pg_kill9")
        assert stack.worker_pid() == first_worker, "the worker exited with the database:\n" + stack.worker_log()

        os.kill(first_worker, signal.SIGKILL)
        assert _wait(lambda: (pid := stack.worker_pid()) and pid != first_worker, 30), stack.worker_log()
        delivered_after("kill_worker")
        load.stop()

        pending = "SELECT count(*) FROM events_delivery WHERE status = 'pending'"
        assert _wait(lambda: cluster.query(database, pending)[0][0] == 0, DELIVERY_WAIT_SECONDS), stack.worker_log()
    finally:
        if load is not None:
            load.stop()
        stack.stop()

    answered = load.answered
    stored = dict(
        cluster.query(
            database,
            "SELECT idempotency_key, string_agg(uuid::text, ',') FROM transactions_transaction GROUP BY 1",
        )
    )
    assert len(answered) >= 20
    assert load.wrong == []
    assert {key: stored.get(key) for key in answered} == answered  # each 2xx exactly once, under the uuid told
    events = {row[0] for row in cluster.query(database, "SELECT uuid::text FROM events_event")}
    assert events - _received_ids(receiver) == set()
    log = stack.worker_log()
    assert log.count("restart-always:") == 1, log  # restarted once: after its own SIGKILL
    assert "Traceback" not in log
    print(
        f"charges answered 2xx: {len(answered)}, failed attempts retried: {load.failures}, events: {len(events)}; "
        f"setup {migrated - started:.0f} s, load and faults {time.monotonic() - migrated:.0f} s"
    )
