"""Shared fixtures: companies, API keys, users and ready-made API clients."""

from __future__ import annotations

import itertools
import os
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import time_machine
from django.core.cache import caches
from django.db import connection
from rest_framework.test import APIClient

from accounts.selectors import api_key_cache_clear, clear_action_group_cache
from tests import factories, nacha_check
from tests.developer_var import pytest_sessionfinish, pytest_sessionstart  # noqa: F401 - hooks: var/ is the developer's
from transactions.ach import origination


@pytest.fixture(autouse=True)
def _wall_clock_at():
    """VAULT_TEST_NOW=2026-11-26T00:40:00Z runs every test as if started then (the clock ticks on): a date-dependent
    test shows itself before the calendar finds it in CI (a holiday's eve, a weekend, the cut-off)."""
    at = os.environ.get("VAULT_TEST_NOW")
    if not at:
        yield
        return
    with time_machine.travel(datetime.fromisoformat(at), tick=True):
        yield


_TEST_DIRECTORIES = itertools.count()


@pytest.fixture
def tmp_path(request, tmp_path_factory) -> Path:
    """Pytest's `tmp_path` (a new directory of the test's own under the session's base directory), numbered by a
    counter: pytest's own numbering lists every directory made so far for each new one, and with every test taking
    one (below) that is quadratic, some 10 s of CPU over this suite."""
    name = re.sub(r"\W", "_", request.node.name)[:30]
    path = tmp_path_factory.getbasetemp() / f"{name}-{next(_TEST_DIRECTORIES)}"
    path.mkdir()
    return path


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_action_group_cache():
    clear_action_group_cache()
    api_key_cache_clear()  # a key's copy outlives the test's rolled-back rows, and ids and hashes come again
    yield
    clear_action_group_cache()
    api_key_cache_clear()


@pytest.fixture(autouse=True)
def _fresh_local_cache():
    """The per-process cache outlives a test's rolled-back rows, and SQLite reuses their ids."""
    caches["local"].clear()
    yield
    caches["local"].clear()


@pytest.fixture(autouse=True)
def _var_dir_of_its_own(settings, tmp_path):
    """What the code writes under VAR_DIR (the demo key, sandbox files, exports) goes to the test's own folder, never
    to the developer's var/ (tests/developer_var.py checks the session)."""
    settings.VAR_DIR = tmp_path / "var"
    settings.SANDBOX_DIR = settings.VAR_DIR / "sandbox"


@pytest.fixture(autouse=True)
def outbound_dir(settings, tmp_path, monkeypatch):
    """Each test writes its NACHA files to its own directory. Every origination file a test makes (each one
    `originate` writes, wherever it goes, and each one left in that directory) must pass the independent
    readers of tests/nacha_check.py, or the test fails at teardown."""
    settings.OUTBOUND_DIR = tmp_path / "outbound"
    written: dict[str, str] = {}
    file_write = origination.origination_file_write

    def file_write_read_back(**kwargs):
        path = file_write(**kwargs)
        if path is not None:
            written[path] = Path(path).read_text()
        return path

    monkeypatch.setattr(origination, "origination_file_write", file_write_read_back)
    yield settings.OUTBOUND_DIR
    directory = Path(settings.OUTBOUND_DIR)
    if directory.exists():
        leftovers = [path.name for path in directory.iterdir() if path.suffix != ".ach"]
        assert leftovers == [], f"partial files left behind: {leftovers}"
        written.update((str(path), path.read_text()) for path in sorted(directory.glob("*.ach")))
    found = [
        f"{Path(path).name}: {problem}" for path, text in written.items() for problem in nacha_check.problems(text)
    ]
    assert found == [], "a NACHA file the test wrote fails an independent reader:\n" + "\n".join(found)


# An ordinary banking day (a Tuesday, 10:00 ET, no holiday near): a test that charges and then originates "now" must
# not depend on the day CI runs (next-day ACH finds nothing due on a holiday's eve after the cut-off, say).
ORDINARY_BANKING_DAY = datetime(2026, 12, 8, 15, tzinfo=UTC)


@pytest.fixture
def ordinary_banking_day():
    with time_machine.travel(ORDINARY_BANKING_DAY, tick=True):
        yield ORDINARY_BANKING_DAY


# An hour before tests/transactions/ach/conftest.py's MONDAY_MORNING (Monday 2026-12-07, 10:00 ET), the instant the
# lifecycle tests run `originate` at: rows a test makes through the API (at the clock's time) must exist before the
# runs that pick them up, whatever the day the suite runs.
MONDAY_EARLY = datetime(2026, 12, 7, 14, tzinfo=UTC)


@pytest.fixture
def monday_early():
    """The clock at MONDAY_EARLY, ticking, for a test that makes rows through the API and then runs the commands at
    fixed instants of that Monday."""
    with time_machine.travel(MONDAY_EARLY, tick=True):
        yield MONDAY_EARLY


@pytest.fixture
def debug_mode(settings):
    """DEBUG on, as under `make run` (pytest-django runs tests with DEBUG off): demo and seed commands run."""
    settings.DEBUG = True


@pytest.fixture
def company(db):
    return factories.CompanyFactory()


@pytest.fixture
def other_company(db):
    return factories.CompanyFactory(name="Other Merchant")


@pytest.fixture
def issued_key(company):
    return factories.issue_api_key(company)


@pytest.fixture
def api_client(issued_key) -> APIClient:
    """A client authenticated with an API key of `company`."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
    return client


@pytest.fixture
def other_api_client(other_company) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(other_company).authorization)
    return client


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


def pooling_can_show(item) -> bool:
    """Whether a test can see transaction pooling (pgbouncer, DATABASE_POOL_MODE=transaction). A test in
    pytest-django's default `django_db` runs inside one atomic block, so a pooler hands it one server connection from
    its first query to its last: through pgbouncer it proves again what the PostgreSQL suite proved. Pooling shows
    only to tests that commit more than once or open other connections (`transaction=True`, `transactional_db`,
    `live_server`; threads, processes and COPY are `postgres`-marked), and to those that read the pool mode; never to
    those marked `unreachable_database`, whose processes meet a server that refuses or never answers, nor to those
    marked `one_transaction` (transactional only to open the one transaction they run in, and roll back)."""
    if item.get_closest_marker("unreachable_database") or item.get_closest_marker("one_transaction"):
        return False
    marker = item.get_closest_marker("django_db")
    transactional = marker is not None and (marker.kwargs.get("transaction") or (marker.args and marker.args[0]))
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(
        transactional
        or fixtures & {"transactional_db", "live_server", "django_db_reset_sequences"}
        or item.get_closest_marker("postgres")
        or item.get_closest_marker("pooled")
        or "DATABASE_POOL_MODE" in _module_text(item)
    )


def _asks_for_a_database(item) -> bool:
    fixtures = set(getattr(item, "fixturenames", ()))
    return bool(
        item.get_closest_marker("django_db")
        or fixtures
        & {"db", "transactional_db", "live_server", "django_db_reset_sequences", "django_db_serialized_rollback"}
    )


def _module_text(item) -> str:
    path = getattr(item, "path", None)
    if path is None or path not in _MODULE_TEXTS:
        _MODULE_TEXTS[path] = path.read_text() if path is not None else ""
    return _MODULE_TEXTS[path]


_MODULE_TEXTS: dict[Path | None, str] = {}


def pytest_collection_modifyitems(config, items):
    """Through pgbouncer (DATABASE_POOL_MODE=transaction) only the tests that can see pooling run (CI's pgbouncer
    lane; every other test ran on PostgreSQL directly). Tests marked `postgres` (real-thread concurrency, COPY,
    pg_trgm) run only against PostgreSQL. A test marked `database_free` may not ask for a database."""
    from django.conf import settings

    for item in items:
        if item.get_closest_marker("database_free") and _asks_for_a_database(item):
            raise pytest.UsageError(f"{item.nodeid} is marked database_free and asks for a database")
    if settings.DATABASE_POOL_MODE == "transaction":
        kept = [item for item in items if pooling_can_show(item)]
        config.hook.pytest_deselected(items=[item for item in items if not pooling_can_show(item)])
        items[:] = kept
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session", autouse=True)
def _flush_by_deleting_rows():
    """A transactional test ends with Django's flush, on PostgreSQL one TRUNCATE of every table: new files for each of
    some 400 tables, indexes and TOAST tables, 2-6 s of the server's time on this machine, most of a transactional
    test's cost. The flush deletes the rows instead, every table's, in one transaction (milliseconds on the few rows a
    test leaves), with triggers and foreign keys off for that transaction alone (`session_replication_role`, as
    TRUNCATE skips row triggers too: a mandate's retention trigger would refuse). The content types and permissions
    stay: the flush's post_migrate would write the same rows again (about 500, 1-2 s), and it still adds any a test
    removed. Sequences are not reset, as before; a flush that asks for that keeps Django's TRUNCATE."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush
    refilled = {ContentType._meta.db_table, Permission._meta.db_table}

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade or not tables:
            return truncate(self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        deletes = (
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))}"
            for table in tables
            if table not in refilled
        )
        return ["; ".join(["SET LOCAL session_replication_role = replica", *deletes])]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", sql_flush)
        yield


@pytest.fixture
def is_postgres() -> bool:
    return connection.vendor == "postgresql"


# DATABASE_URL may point at pgbouncer (CI runs the PostgreSQL suite through it). The test database is then created
# and dropped on the server itself, named by DATABASE_DIRECT_URL: pgbouncer keeps server connections to a database
# in its pool, and PostgreSQL refuses to drop a database that has connections. Every test query goes through
# DATABASE_URL.
DIRECT_URL = os.environ.get("DATABASE_DIRECT_URL")


def _point_default_at(url: str) -> None:
    from django.db import connections

    parts = urlsplit(url)
    for alias in connections:
        settings_dict = connections[alias].settings_dict
        if alias == "default" or settings_dict is connections["default"].settings_dict:
            connections[alias].close()
            settings_dict["HOST"], settings_dict["PORT"] = parts.hostname, str(parts.port or 5432)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings):
    if DIRECT_URL:
        _point_default_at(DIRECT_URL)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    from django.conf import settings
    from django.db import connections

    if DIRECT_URL:
        _point_default_at(os.environ["DATABASE_URL"])
    if connections["default"].vendor == "postgresql":
        # A session left idle inside a transaction (a test's thread whose connection outlived it, seen in CI) would
        # hold its locks until the run ends, and the next transactional test's flush would wait for it for ever:
        # the server ends such a session after 5 minutes instead.
        with django_db_blocker.unblock(), connections["default"].cursor() as cursor:
            name = connections["default"].ops.quote_name(connections["default"].settings_dict["NAME"])
            cursor.execute(f"ALTER DATABASE {name} SET idle_in_transaction_session_timeout = '300s'")
    replica = settings.DATABASES.get("reporting")
    default = settings.DATABASES["default"]
    if replica and (replica["HOST"], str(replica["PORT"])) != (default["HOST"], str(default["PORT"])):
        # A real streaming replica has the test database too (it replays the primary): read it there.
        connections["reporting"].close()
        connections["reporting"].settings_dict = {**replica, "NAME": connections["default"].settings_dict["NAME"]}
    yield
    if DIRECT_URL:
        with django_db_blocker.unblock():
            _point_default_at(DIRECT_URL)
            _end_pooled_sessions(connections["default"].settings_dict["NAME"])
    elif connections["default"].vendor == "postgresql":
        with django_db_blocker.unblock():
            _end_sessions_left(connections["default"])


def _end_sessions_left(connection) -> None:
    """DROP DATABASE refuses a database that another session is on. Every thread and process a test starts closes its
    own connections (tests/concurrency.py, vault.threads), and the suite no longer imports config/wsgi.py, whose
    gc.freeze() kept a finished thread's unclosed connection from ever being collected; a session still there is
    named by what PostgreSQL knows of it and ended, so that the run's result does not depend on it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, application_name, state, backend_start, left(query, 300) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        left = cursor.fetchall()
        for pid, application, state, started, query in left:
            warnings.warn(
                f"a session left on the test database at teardown, ended: pid {pid} {application!r} {state} since "
                f"{started}, its last statement: {query}",
                stacklevel=1,
            )
        if left:
            cursor.execute("SELECT pg_terminate_backend(pid) FROM unnest(%s::int[]) AS pid", [[row[0] for row in left]])


def _end_pooled_sessions(database: str) -> None:
    """pgbouncer's idle server connections to the test database: the run is over, and DROP DATABASE needs none."""
    import psycopg

    parts = urlsplit(DIRECT_URL)
    dsn = f"host={parts.hostname} port={parts.port or 5432} user={parts.username or 'postgres'} dbname=postgres"
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        )
