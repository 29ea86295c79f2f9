"""How many transaction rows this database transaction has read so far (PostgreSQL's pg_stat_xact_user_tables):
what a test of a read that must not grow with the entries compares before and after."""

from __future__ import annotations

from django.db import connection


def entry_rows_read() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) FROM pg_stat_xact_user_tables "
            "WHERE relname = 'transactions_transaction'"
        )
        return cursor.fetchone()[0]
