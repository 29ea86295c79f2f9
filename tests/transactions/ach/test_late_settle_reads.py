"""`settle` finds the returns waiting for their late-return settlement through an index that holds only those
(txn_awaiting_late_settlement, transactions 0025). An entry stays Returned for good, so through the status index
every settle run read every return ever received, a number that only grows (1% of a processor's million entries a
day is 3.6 million a year)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import connection

from tests import factories
from tests.transactions.ach.conftest import MONDAY_SETTLED, run
from transactions.models import Settlement, Transaction

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_settle_finds_the_waiting_late_returns_through_their_own_index(company):
    settled_before = Settlement.objects.create(
        company=company, kind=Settlement.Kind.LATE_RETURN, settlement_date=datetime(2026, 12, 4).date()
    )
    late = datetime(2026, 12, 4, 14, tzinfo=UTC)
    for _ in range(3):  # returns already taken back: settle has nothing more to do with them
        factories.TransactionFactory(
            company=company, status="Returned", late_returned_at=late, late_return_settlement=settled_before
        )
    waiting = factories.TransactionFactory(company=company, status="Returned", late_returned_at=late)
    captured: list[tuple[str, object]] = []

    def capture(execute, sql, params, many, context):
        if '"late_return_settlement_id" IS NULL' in sql and "DISTINCT" in sql:  # which companies have some
            captured.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        run("settle", "--at", MONDAY_SETTLED)

    waiting.refresh_from_db()
    assert waiting.late_return_settlement is not None
    assert Transaction.objects.filter(late_return_settlement=settled_before).count() == 3
    assert captured
    for sql, params in captured:
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")  # the plan that could use the index does
            cursor.execute(f"EXPLAIN {sql}", params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "txn_awaiting_late_settlement" in plan, plan
