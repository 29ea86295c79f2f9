"""`run_worker` outlives its database (issue 25 D1): a real worker process behind a TCP forwarder that the test cuts
(every connection reset, new ones refused) keeps running, and delivers what was committed meanwhile once the
database is reachable again. It exits only on a signal, and an idle worker writes nothing per poll (D2)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection, transaction

from events.models import Delivery
from tests.events.conftest import customer_event, worker_env
from tests.tcp_proxy import CuttableProxy

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REPO = Path(__file__).resolve().parents[2]


def _start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 - our own manage.py
        [sys.executable, "manage.py", "run_worker", "--interval", "0.05", "--sweep-interval", "0.2"],
        cwd=REPO,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
    )


def _wait_for(condition, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _other_sessions() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return cursor.fetchone()[0]


def _stop(worker: subprocess.Popen) -> int:
    """SIGTERM; its status once it exited and its server sessions ended (the test database is dropped next)."""
    worker.send_signal(signal.SIGTERM)
    try:
        return worker.wait(20)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
        _wait_for(lambda: _other_sessions() == 0, 10)


def test_the_worker_waits_out_a_lost_database_and_delivers_what_was_committed_meanwhile(
    company, endpoint, receiver, tmp_path
):
    proxy = CuttableProxy(connection.settings_dict["HOST"] or "127.0.0.1", int(connection.settings_dict["PORT"]))
    proxy.open()
    log = tmp_path / "worker.log"
    worker = _start_worker(worker_env(port=proxy.port, WORKER_BACKOFF_MAX_SECONDS="1"), log)
    try:
        with transaction.atomic():
            before = customer_event(company)
        assert _wait_for(lambda: str(before.uuid) in {body["id"] for body in receiver.bodies()})
        # and recorded: a cut between the receiver's 200 and the worker's commit of it would fail that commit
        # (logged with its traceback, and the delivery sent again), which is not what this test is about.
        assert _wait_for(lambda: Delivery.objects.filter(status="delivered").exists())

        proxy.cut()  # the database is gone: open connections reset, new ones refused
        assert _wait_for(lambda: "database unavailable" in log.read_text(), 30), log.read_text()
        with transaction.atomic():  # written straight to the database, which the worker cannot reach
            during = customer_event(company)
        time.sleep(2)  # a few failed passes and backoffs
        assert worker.poll() is None, log.read_text()
        assert str(during.uuid) not in {body["id"] for body in receiver.bodies()}

        proxy.open()  # back, on the same address
        assert _wait_for(lambda: str(during.uuid) in {body["id"] for body in receiver.bodies()}), log.read_text()
        assert worker.poll() is None
        assert _wait_for(lambda: set(Delivery.objects.values_list("status", flat=True)) == {"delivered"})
    finally:
        status = _stop(worker)
        proxy.cut()
    text = log.read_text()
    assert status == 0, text
    assert text.count("database unavailable") == 1 and "database back after" in text
    assert "Traceback" not in text


def test_an_idle_worker_writes_nothing_per_poll_and_stops_on_sigterm(db, tmp_path):
    log = tmp_path / "worker.log"
    worker = _start_worker(worker_env(), log)
    try:
        assert _wait_for(lambda: "started" in log.read_text(), 30), log.read_text()
        time.sleep(3)  # about 60 idle polls at --interval 0.05
    finally:
        status = _stop(worker)
    lines = log.read_text().splitlines()
    assert status == 0
    assert len(lines) <= 3, lines  # started, the signal, stopped: nothing per poll
