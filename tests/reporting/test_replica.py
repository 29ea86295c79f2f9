"""With REPORTING_DATABASE_URL set, report queries run on the `reporting` alias. CI runs this file with the alias
pointing at the primary's test database, then at a real streaming replica (made with pg_basebackup), then with
that replica stopped (REPORTING_REPLICA_STOPPED=1)."""

from __future__ import annotations

import os
import socket
import time

import psycopg
import pytest
from django.conf import settings
from django.db import connections
from django.test.utils import CaptureQueriesContext

from tests.reporting.conftest import build_transaction, ids_of, report

pytestmark = [
    pytest.mark.skipif("reporting" not in settings.DATABASES, reason="REPORTING_DATABASE_URL not set"),
    pytest.mark.django_db(transaction=True, databases=["default", "reporting"]),
]


def _touches_transactions(queries) -> bool:
    return any("transactions_transaction" in query["sql"] for query in queries)


@pytest.mark.skipif(os.environ.get("REPORTING_REPLICA_STOPPED") == "1", reason="the replica is stopped")
def test_report_reads_from_the_reporting_alias(api_client, company):
    txn = build_transaction(company, amount=4321)
    if _is_streaming_replica():
        _wait_for_replay()
    with (
        CaptureQueriesContext(connections["reporting"]) as replica,
        CaptureQueriesContext(connections["default"]) as primary,
    ):
        response = report(api_client, amount="4321")
        csv_body = b"".join(report(api_client, format="csv").streaming_content).decode()
    assert ids_of(response) == {txn.pk}
    assert str(txn.uuid) in csv_body
    assert _touches_transactions(replica.captured_queries)
    assert not _touches_transactions(primary.captured_queries)


def _is_streaming_replica() -> bool:
    connection = connections["reporting"]
    if connection.vendor != "postgresql" or connection.settings_dict is connections["default"].settings_dict:
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_is_in_recovery()")
        return cursor.fetchone()[0]


def _replica_dsn() -> str:
    s = connections["reporting"].settings_dict
    return f"host={s['HOST']} port={s['PORT']} user={s['USER']} dbname={s['NAME']}"


def _wait_for_replay() -> None:
    """Until the replica has replayed everything the primary has written so far."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()")
        written = cursor.fetchone()[0]
    deadline = time.monotonic() + 30
    with psycopg.connect(_replica_dsn(), autocommit=True) as replica:
        while time.monotonic() < deadline:
            if replica.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [written]).fetchone()[0]:
                return
            time.sleep(0.05)
    raise AssertionError("the replica did not replay the primary's writes within 30 s")


@pytest.mark.skipif(
    os.environ.get("REPORTING_REPLICA_STOPPED") == "1", reason="the replica is stopped for the test below"
)
def test_report_reads_reach_the_streaming_replica(api_client, company):
    if not _is_streaming_replica():
        pytest.skip("REPORTING_DATABASE_URL is not a streaming replica (.ci/run starts one)")
    txn = build_transaction(company, amount=8765)
    _wait_for_replay()
    with psycopg.connect(_replica_dsn(), autocommit=True) as replica:
        assert replica.execute("SELECT pg_is_in_recovery()").fetchone()[0] is True
        scans_before = _transaction_scans(replica)
        with CaptureQueriesContext(connections["reporting"]) as on_alias:
            assert ids_of(report(api_client, amount="8765")) == {txn.pk}
        backend = connections["reporting"].connection.info.backend_pid
        session = replica.execute("SELECT datname FROM pg_stat_activity WHERE pid = %s", [backend]).fetchone()
        # The replica's own statistics count the report's reads of the transaction table (flushed within ~1 s).
        deadline = time.monotonic() + 15
        while _transaction_scans(replica) <= scans_before and time.monotonic() < deadline:
            time.sleep(0.2)
        scans_after = _transaction_scans(replica)
    assert session == (connections["default"].settings_dict["NAME"],), "the reporting alias is not a replica session"
    assert _touches_transactions(on_alias.captured_queries)
    assert scans_after > scans_before


def _transaction_scans(replica) -> int:
    replica.execute("SELECT pg_stat_clear_snapshot()")
    return replica.execute(
        "SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_user_tables "
        "WHERE relname = 'transactions_transaction'"
    ).fetchone()[0]


@pytest.mark.skipif(os.environ.get("REPORTING_REPLICA_STOPPED") != "1", reason="needs the replica stopped (.ci/run)")
def test_a_stopped_replica_is_503_with_retry_after(api_client, company):
    started = time.monotonic()
    response = report(api_client)
    assert response.status_code == 503, response.content
    assert response["Retry-After"] and time.monotonic() - started < 10
    csv_response = report(api_client, format="csv")
    assert csv_response.status_code == 503


def test_a_replica_that_accepts_but_never_answers_is_503_within_the_connect_timeout(api_client, company):
    """A hung replica (the TCP connection opens, nothing answers) costs connect_timeout, not the request."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    connection = connections["reporting"]
    saved = connection.settings_dict
    connection.close()
    connection.settings_dict = {**saved, "HOST": "127.0.0.1", "PORT": str(listener.getsockname()[1])}
    try:
        started = time.monotonic()
        response = report(api_client)
        elapsed = time.monotonic() - started
    finally:
        connection.close()
        connection.settings_dict = saved
        listener.close()
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == "1"
    assert elapsed < settings.DATABASES["reporting"]["OPTIONS"]["connect_timeout"] + 5
