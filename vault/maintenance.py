"""Table upkeep after bulk writes (PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connections


def vacuum_analyze(models: Iterable[type], *, using: str = "default") -> bool:
    """VACUUM (ANALYZE) each model's table, as a bulk load or rewrite should end: fresh planner statistics, and a
    visibility map that lets counts and keyset pages be index-only scans at once instead of after autovacuum
    comes round (right after loading a million rows every index scan also read the heap: 1 to 1.5 s a page).

    Returns whether it ran: not on SQLite, and not inside a transaction, where VACUUM cannot run (a caller's
    atomic block, a test's rolled-back transaction); those tables are vacuumed by autovacuum as usual."""
    connection = connections[using]
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return False
    with connection.cursor() as cursor:
        for table in dict.fromkeys(model._meta.db_table for model in models):
            cursor.execute(f"VACUUM (ANALYZE) {connection.ops.quote_name(table)}")
    return True
