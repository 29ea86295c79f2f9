"""CI's pgbouncer lane runs only the tests that can see transaction pooling (tests/conftest.py `pooling_can_show`):
the rule keeps every kind of test that commits, opens other connections or reads the pool mode, and leaves out the
ones that run inside one atomic block."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import pooling_can_show

ROOT = Path(__file__).resolve().parent


def _items(request, relative: str) -> dict[str, list]:
    """The test functions of a module, collected afresh (the lane may have deselected them from this session)."""
    module = pytest.Module.from_parent(request.session, path=ROOT / relative)
    found: dict[str, list] = {}
    for item in module.collect():
        found.setdefault(item.originalname, []).append(item)
    return found


@pytest.mark.parametrize(
    ("module", "test", "kept", "why"),
    [
        ("test_logs.py", "test_gunicorn_and_the_service_log_no_key_token_password_or_number", True, "transaction=True"),
        (
            "test_generated_client.py",
            "test_generated_client_creates_customer_saves_account_charges_it_and_reads_report",
            True,
            "live_server",
        ),
        (
            "test_commands_on_a_refused_database.py",
            "test_the_web_process_has_a_statement_timeout_and_commands_have_none",
            True,
            "postgres-marked, reads the pool mode",
        ),
        (
            "test_commands_on_a_refused_database.py",
            "test_every_command_on_a_refused_database_prints_one_line_and_exits_1",
            False,
            "unreachable_database: its commands meet a server that refuses, no pooler can show",
        ),
        (
            "payments/test_migration_account_number_hash.py",
            None,
            False,
            "one_transaction: migrates back and forth inside one transaction that it rolls back",
        ),
        ("payments/test_concurrency.py", None, True, "threads on PostgreSQL"),
        ("accounts/test_permission_matrix.py", None, False, "one atomic block per test"),
        ("customers/test_api_read_update.py", None, False, "one atomic block per test"),
    ],
)
def test_the_pgbouncer_lane_keeps_the_tests_that_can_see_pooling(request, module, test, kept, why):
    items = _items(request, module)
    chosen = items[test] if test else [item for group in items.values() for item in group]
    assert chosen
    assert {pooling_can_show(item) for item in chosen} == {kept}, why
