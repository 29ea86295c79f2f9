"""A return file's items are matched to their entries through the trace-number index, however many a chunk holds.
That index holds only the entries that have a trace number, and PostgreSQL proves that `trace_number = ANY(array)`
leaves out the empty one only for arrays of up to 100 elements: a chunk of 10,000 items that did not say so itself
read the whole table (0.35 s a chunk at a million entries, and a processor keeps 60 days of them)."""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

import pytest
from django.db import connection

from transactions.ach import matching, returns

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _plan_of_matching(items: int) -> str:
    chunk = [SimpleNamespace(original_trace=f"{n:015d}") for n in range(items)]
    captured: list[tuple[str, object]] = []

    def capture(execute, sql, params, many, context):
        captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        found = matching.matches(chunk, at=datetime(2026, 12, 9, 14, tzinfo=UTC), file_date=None)
    assert found == [matching.Match(reason=matching.NO_ENTRY)] * items
    (sql, params), *_companies = captured
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # the plan that could use the index does
        cursor.execute(f"EXPLAIN {sql}", params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.parametrize("items", [3, returns.LOCK_CHUNK])
def test_a_chunk_of_the_file_is_matched_through_the_trace_index(items):
    plan = _plan_of_matching(items)
    assert "transaction_unique_trace_number_day" in plan and "Seq Scan" not in plan, plan
