"""A transaction's links to other rows are indexed only where they are set (transactions/0020): a status move of
an entry with no retry, refund, validation, return, batch or settlement writes no entry in those indexes, and a
lookup by a link (`link = X`, or `= ANY` of a list, as the lifecycle commands write it) still reads its index."""

from __future__ import annotations

import pytest
from django.db import connection

from transactions.models import Transaction

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

TABLE = Transaction._meta.db_table


def _link_columns() -> set[str]:
    return {field.column for field in Transaction._meta.concrete_fields if field.is_relation and field.null}


def _single_column_indexes() -> dict[str, str | None]:
    """column -> the predicate of the index on that column alone (None: every row)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.attname, pg_get_expr(x.indpred, x.indrelid) FROM pg_index x "
            "JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0] "
            "WHERE x.indrelid = %s::regclass AND x.indnatts = 1",
            [TABLE],
        )
        return dict(cursor.fetchall())


def test_every_link_has_an_index_of_the_rows_where_it_is_set():
    indexes = _single_column_indexes()
    links = _link_columns()
    assert "batch_id" in links and "refund_of_id" in links
    for column in links:
        assert indexes.get(column) == f"({column} IS NOT NULL)", column


@pytest.mark.parametrize("condition", ["refund_of_id = %s", "refund_of_id = ANY(%s::bigint[])"])
def test_a_lookup_by_a_link_reads_its_partial_index(condition):
    value = 1 if "ANY" not in condition else [1, 2]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN SELECT id FROM {TABLE} WHERE {condition}", [value])  # noqa: S608 - model table
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "txn_refund_of" in plan, plan
