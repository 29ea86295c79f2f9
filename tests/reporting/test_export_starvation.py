"""N4: one company's slowly read CSV exports cannot starve the service. A real gunicorn started with the shipped
gunicorn.conf.py (gthread workers, 2 x 4 request slots) on this test's PostgreSQL database; company A's exports
are read through a 4 KiB receive window and never drained, while company B's requests are answered."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from reporting.models import CsvExportLease
from sampledata.seeding import seed_transactions
from tests import factories

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(settings.BASE_DIR)
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))
ROWS = 30_000  # several MB of CSV: more than the socket buffers between a stalled reader and the server


def _database_url() -> str:
    s = connection.settings_dict
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def server(tmp_path):
    """gunicorn as `make run` starts it (gunicorn.conf.py from the working directory), with this process's secrets
    (DEBUG=1 reads the same dev secrets from var/) and at most 2 exports service-wide."""
    err = tmp_path / "gunicorn.err"
    env = {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": _database_url(),
        "GUNICORN_BIND": "127.0.0.1:0",
        "CSV_EXPORTS_SERVICE_WIDE": "2",
        "WEB_CONCURRENCY": "2",
    }
    process = subprocess.Popen(  # noqa: S603 - fixed arguments
        [GUNICORN], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err.open("wb")
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", err.read_text())
            if found:
                break
            assert process.poll() is None, err.read_text()
            assert time.monotonic() < deadline, "gunicorn did not start"
            time.sleep(0.1)
        yield int(found.group(1)), err
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _slow_export(port: int, authorization: str) -> socket.socket:
    """Asks for A's whole export and then stops reading: a 4 KiB window, as the review's slow reader."""
    reader = socket.socket()
    reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    reader.connect(("127.0.0.1", port))
    request = f"GET /reporting/transactions?format=csv HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {authorization}"
    reader.sendall(f"{request}\r\n\r\n".encode())
    assert reader.recv(64).startswith(b"HTTP/1.1 200")
    return reader


def _get(port: int, path: str, authorization: str) -> tuple[int, dict]:
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Authorization": authorization})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_slow_readers_of_one_company_leave_the_service_to_the_others(server):
    port, log = server
    company_a, company_b = factories.CompanyFactory(name="A"), factories.CompanyFactory(name="B")
    seed_transactions(company=company_a, count=ROWS, vacuum=False)
    key_a = factories.issue_api_key(company_a).authorization
    key_b = factories.issue_api_key(company_b).authorization
    factories.CustomerFactory(company=company_b)

    readers = [_slow_export(port, key_a), _slow_export(port, key_a)]
    try:
        time.sleep(1)  # the exports have filled every buffer between them and their readers
        started = time.monotonic()
        status, body = _get(port, "/customers?page=0&pageSize=1", key_b)
        waited = time.monotonic() - started
        # B is answered while both of A's exports are still held by their stalled readers.
        still_streaming = CsvExportLease.objects.filter(company_id=company_a.pk).count()

        third_a, _ = _get(port, "/reporting/transactions?format=csv", key_a)
        export_b, body_b = _get(port, "/reporting/transactions?format=csv", key_b)
    finally:
        for reader in readers:
            reader.close()

    assert (status, len(body["data"])) == (200, 1)
    assert still_streaming == 2
    # No worker was killed to free a slot (sync workers: B waits for gunicorn's 60 s timeout to kill one).
    assert "WORKER TIMEOUT" not in log.read_text()
    assert waited < 10, f"B waited {waited:.1f} s"  # a generous bound: B is answered at once
    assert third_a == 429  # the company's cap
    assert export_b == 429 and "service" in body_b["message"]  # the service-wide cap (2 here)
