"""Every management command of the project, run by `manage.py` against a database that refuses connections (a
closed port on loopback): one line on stderr naming the cause, nothing on stdout, exit status 1, no traceback
(issue 25 D5), as for any other bad input. `run_worker` without `--batch` is the exception: it waits for the
database (tests/events/test_worker_outlives_database.py). Also: connect_timeout against a server that never answers,
and the statement timeout of the web process (issue 25, item 5)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import django.core.management
import pytest

REPO = Path(__file__).resolve().parents[1]
PROJECT_APPS = {"accounts", "customers", "events", "payments", "reporting", "transactions", "vault"}
SOME_UUID = str(uuid.uuid4())
# Arguments that get each command past its own checks to its first query.
ARGUMENTS = {
    "create_company": ["--name", "Acme"],
    "create_api_key": ["--company", SOME_UUID],
    "create_user": ["--email", "ops@example.com", "--password", "a long enough password", "--company", SOME_UUID],
    "set_rollout": ["--company", SOME_UUID, "--staged"],
    "release_holds": ["--uuid", SOME_UUID],
    "seed_transactions": ["--company", SOME_UUID, "--count", "10"],
    "import_returns": ["{returns_file}"],
    "run_worker": ["--batch"],
}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens once it is closed


def _project_commands() -> list[str]:
    commands = django.core.management.get_commands()
    return sorted(name for name, app in commands.items() if app.split(".")[0] in PROJECT_APPS) + ["migrate"]


@pytest.mark.unreachable_database
def test_every_command_on_a_refused_database_prints_one_line_and_exits_1(tmp_path):
    returns_file = tmp_path / "returns.csv"
    returns_file.write_text("traceNumber,returnCode\n")
    # What a process inherits decides it: an operator's command starts without config/wsgi.py's VAULT_WEB_PROCESS,
    # whatever an earlier test's import may have left in this process's environment.
    env = {
        **{name: value for name, value in os.environ.items() if name != "VAULT_WEB_PROCESS"},
        "DEBUG": "1",
        "VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{_closed_port()}/vault",
    }
    env.pop("REPORTING_DATABASE_URL", None)

    def run(name: str) -> tuple[str, subprocess.CompletedProcess]:
        args = [arg.format(returns_file=returns_file) for arg in ARGUMENTS.get(name, [])]
        return name, subprocess.run(  # noqa: S603 - our own manage.py
            [sys.executable, "manage.py", name, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
        )

    with ThreadPoolExecutor(4) as pool:
        results = dict(pool.map(run, _project_commands()))

    assert len(results) >= 16
    answers = {name: (result.returncode, result.stdout, result.stderr.strip()) for name, result in results.items()}
    wrong = {
        name: (status, stdout, stderr)
        for name, (status, stdout, stderr) in answers.items()
        if (status, stdout) != (1, "")
        or len(stderr.splitlines()) != 1
        or not stderr.startswith("CommandError: ")
        or "database" not in stderr
    }
    assert wrong == {}


@pytest.mark.unreachable_database
@pytest.mark.parametrize("name", ["create_company", "originate"])
def test_a_command_with_bad_input_still_says_what_is_wrong_before_touching_the_database(name):
    result = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", name, "--at" if name == "originate" else "--name", ""],
        cwd=REPO,
        env={**os.environ, "DEBUG": "1", "DATABASE_URL": f"postgres://postgres@127.0.0.1:{_closed_port()}/vault"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1 and "database unavailable" not in result.stderr
    assert result.stderr.startswith("CommandError: ")


@pytest.mark.unreachable_database
def test_a_server_that_never_answers_fails_the_command_after_the_connect_timeout():
    """A tarpit: a loopback socket whose backlog completes the TCP handshake, and which never says a word."""
    with socket.socket() as tarpit:
        tarpit.bind(("127.0.0.1", 0))
        tarpit.listen(8)
        result = subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", "create_company", "--name", "Acme"],
            cwd=REPO,
            env={
                **os.environ,
                "DEBUG": "1",
                "DATABASE_URL": f"postgres://postgres@127.0.0.1:{tarpit.getsockname()[1]}/vault",
                "DATABASE_CONNECT_TIMEOUT": "1",
            },
            capture_output=True,
            text=True,
            timeout=90,  # without a connect timeout libpq would wait here for ever
        )
    assert result.returncode == 1
    assert result.stderr.startswith("CommandError: database unavailable: ") and "timeout" in result.stderr


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_web_process_has_a_statement_timeout_and_commands_have_none():
    from django.db import connection

    settings_dict = connection.settings_dict
    # What a process inherits decides it: an operator's command starts without config/wsgi.py's VAULT_WEB_PROCESS,
    # whatever an earlier test's import may have left in this process's environment.
    env = {
        **{name: value for name, value in os.environ.items() if name != "VAULT_WEB_PROCESS"},
        "DEBUG": "1",
        "WEB_STATEMENT_TIMEOUT_MS": "12000",
        "DATABASE_URL": f"postgres://{settings_dict['USER']}@{settings_dict['HOST']}:{settings_dict['PORT']}/"
        f"{settings_dict['NAME']}",
    }
    show = "from django.db import connection; cursor = connection.cursor(); cursor.execute('SHOW statement_timeout'); "
    show += "print(cursor.fetchone()[0])"

    def setting(code: str) -> str:
        result = subprocess.run(  # noqa: S603
            [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=True
        )
        return result.stdout.strip().splitlines()[-1]

    # Behind pgbouncer in transaction mode no startup option passes (pgbouncer would refuse the connection): the web
    # process must still connect, and the timeout is the role's (ALTER ROLE ... SET statement_timeout).
    from django.conf import settings

    pooled = settings.DATABASE_POOL_MODE == "transaction"
    assert setting(f"import config.wsgi; {show}") == ("0" if pooled else "12s")
    assert setting(f"import django; django.setup(); {show}") == "0"
