"""Nothing the service or gunicorn writes carries a credential or a full account or card number (review C1).

A real gunicorn, started the way `make run` and production start it (the shipped gunicorn.conf.py, plus
`--access-logfile -`), serves requests that carry every kind of secret; then all it wrote is searched."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import closing
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.conf import settings
from django.db import connection

from tests.config.test_startup import _manage

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(settings.BASE_DIR)
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))
PASSWORD = "pass-phrase-never-logged-7731"
ACCOUNT = "000123456789"
OTHER_ACCOUNT = "555500001111"
PAN = "4111111111111111"
CVV_MARK = "cvv"
WRONG_KEY = "vk_0a1b2c3d4e5f_" + "W" * 40

SETUP = (
    """
import json
from io import StringIO
from django.core.management import call_command

def run(*args):
    out = StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue())

call_command("migrate", verbosity=0)
# A transaction=True test's flush removes the live API-key group the migrations made; keys fail closed without it.
from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP
from accounts.models import ActionGroup
ActionGroup.objects.get_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": list(ALL_ACTIONS)})
company = run("create_company", "--name", "Log Probe")["companyUuid"]
key = run("create_api_key", "--company", company)
run("create_user", "--email", "ops@example.com", "--password", "%s", "--company", company, "--role", "admin")
print(json.dumps({"company": company, "apiKey": key["apiKey"], "authorization": key["authorization"]}))
"""
    % PASSWORD
)


def _database_url(tmp_path: Path) -> str:
    """The server's database: this test's PostgreSQL database (rows committed, transaction=True), or an SQLite
    file of its own, a copy of the test's migrated database (which lives in this process's memory; migrating a new
    file would cost the setup 10 s)."""
    if connection.vendor == "postgresql":
        s = connection.settings_dict
        password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
        return f"postgres://{s['USER']}{password}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    path = tmp_path / "server.sqlite3"
    connection.ensure_connection()
    with closing(sqlite3.connect(path)) as copy:
        connection.connection.backup(copy)
    return f"sqlite:///{path}"


@pytest.fixture
def server_env(tmp_path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "DEBUG": "0",
        "VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": _database_url(tmp_path),
        "DATABASE_POOL_MODE": settings.DATABASE_POOL_MODE,  # behind pgbouncer (CI) the server must know it
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",  # plain HTTP on the loopback; production sits behind TLS
        "SECRET_KEY": "s" * 50,
        "FIELD_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
        "BLIND_INDEX_KEY": "b" * 40,
        "JWT_SIGNING_KEY": "j" * 40,
        "IDEMPOTENCY_HASH_KEY": "i" * 40,
        "LOG_LEVEL": "DEBUG",  # the most the service can be made to say
    }


def _setup(env: dict[str, str]) -> dict[str, str]:
    result = subprocess.run(  # noqa: S603 - fixed arguments
        [sys.executable, "manage.py", "shell", "-c", SETUP],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


class Server:
    def __init__(self, env: dict[str, str], out: Path, err: Path) -> None:
        self.out, self.err = out, err
        self.process = subprocess.Popen(  # noqa: S603 - fixed arguments
            [GUNICORN, "config.wsgi:application", "--bind", "127.0.0.1:0", "--workers", "1", "--access-logfile", "-"],
            cwd=ROOT,  # gunicorn.conf.py is read from the working directory
            env=env,
            stdout=out.open("wb"),
            stderr=err.open("wb"),
        )
        self.base = f"http://127.0.0.1:{self._port()}"

    def _port(self) -> int:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", self.err.read_text())
            if found:
                return int(found.group(1))
            if self.process.poll() is not None:
                raise AssertionError(f"gunicorn exited: {self.err.read_text()}")
            time.sleep(0.1)
        raise AssertionError("gunicorn did not start")

    def request(self, method: str, path: str, *, body: dict | None = None, authorization: str = "") -> dict:
        headers = {"Content-Type": "application/json"}
        if authorization:
            headers["Authorization"] = authorization
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)  # noqa: S310
        try:
            with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - loopback
                return {"status": response.status, "body": json.loads(response.read() or b"null")}
        except urllib.error.HTTPError as error:
            return {"status": error.code, "body": json.loads(error.read() or b"null")}

    def stop(self) -> str:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        return self.out.read_text() + self.err.read_text()


def test_gunicorn_and_the_service_log_no_key_token_password_or_number(tmp_path, server_env):
    created = _setup(server_env)
    server = Server(server_env, tmp_path / "stdout.log", tmp_path / "stderr.log")
    try:
        basic = created["authorization"]
        wrong_basic = "Basic " + base64.b64encode(f"{WRONG_KEY}:".encode()).decode()
        assert server.request("GET", "/customers?page=0&pageSize=5", authorization=basic)["status"] == 200
        assert server.request("GET", "/customers?page=0&pageSize=5", authorization=wrong_basic)["status"] == 401
        report = "/reporting/transactions?page=0&pageSize=5"
        for query in (f"&accountnumber:eq={ACCOUNT}", f"&accountnumber:in={ACCOUNT},{OTHER_ACCOUNT}"):
            assert server.request("GET", report + query, authorization=basic)["status"] == 200
        bad_condition = server.request("GET", report + f"&accountnumber:gt={ACCOUNT}", authorization=basic)
        assert bad_condition["status"] == 400
        charge = {
            "method": "ACH",
            "type": "Debit",
            "amount": 1500,
            "paymentDetails": {
                "name": "Eve",
                "accountType": "Checking",
                "accountNumber": ACCOUNT,
                "routingNumber": "021000021",
            },
        }
        assert server.request("PUT", "/transactions", body=charge, authorization=basic)["status"] == 201
        card = {
            "method": "CRD",
            "type": "Debit",
            "amount": 2500,
            "paymentDetails": {"name": "Eve", "cardNumber": PAN, "expirationDate": "12/39", "cvv": "737"},
        }
        assert server.request("PUT", "/transactions", body=card, authorization=basic)["status"] == 201
        bad = server.request("PUT", "/transactions", body={**card, "amount": "x"}, authorization=basic)
        assert bad["status"] == 400
        login = server.request("POST", "/auth/login", body={"email": "ops@example.com", "password": PASSWORD})
        assert login["status"] == 200, login
        tokens = login["body"]["data"]
        wrong_login = server.request(
            "POST", "/auth/login", body={"email": "ops@example.com", "password": PASSWORD[::-1]}
        )
        assert wrong_login["status"] == 401
        bearer = "Bearer " + tokens["accessToken"]
        customers = f"/customers?page=0&pageSize=5&entityUuid={created['company']}"
        assert server.request("GET", customers, authorization=bearer)["status"] == 200
        refreshed = server.request("POST", "/auth/refresh", body={"refreshToken": tokens["refreshToken"]})
        assert refreshed["status"] == 200
    finally:
        written = server.stop()

    secrets = {
        "API key": created["apiKey"],
        "Basic credentials": basic.split()[1],
        "wrong API key": WRONG_KEY,
        "wrong Basic credentials": wrong_basic.split()[1],
        "password": PASSWORD,
        "reversed password": PASSWORD[::-1],
        "access token": tokens["accessToken"],
        "refresh token": tokens["refreshToken"],
        "new access token": refreshed["body"]["data"]["accessToken"],
        "account number": ACCOUNT,
        "other account number": OTHER_ACCOUNT,
        "card number": PAN,
        "cvv": CVV_MARK,
        "query string": "pageSize=5",
    }
    leaked = [name for name, value in secrets.items() if value in written]
    assert leaked == [], written
    access_lines = [line for line in written.splitlines() if '"GET /customers"' in line]
    assert len(access_lines) == 3, written  # the access log was captured, so the search above could find things
    assert re.search(r' [0-9a-f]{32} "GET /customers" 401 ', written), written  # request id, no query string


def test_log_format_json_writes_one_json_object_per_line(tmp_path):
    # F11: with LOG_FORMAT=json a log line, a traceback included, is one JSON object a collector can parse.
    script = (
        "import logging\n"
        "log = logging.getLogger('vault.ops')\n"
        "log.warning('settled %s', 3)\n"
        "try:\n    1 / 0\nexcept ZeroDivisionError:\n    log.exception('boom')\n"
    )
    result = _manage(tmp_path, ["shell", "-c", script], {"DEBUG": "1", "LOG_FORMAT": "json"})
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.strip()]
    settled, boom = (line for line in lines if line["logger"] == "vault.ops")
    assert (settled["level"], settled["message"]) == ("WARNING", "settled 3")
    assert boom["level"] == "ERROR" and "ZeroDivisionError" in boom["exc_info"] and "time" in boom
