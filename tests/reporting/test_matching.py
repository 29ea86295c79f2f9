"""The matching rows' SQL compiled once per shape of the filters (reporting.matching): a request whose filters have
the shape of an earlier request's sends the statement a fresh compile sends, with its own values, and answers alike."""

from __future__ import annotations

import pytest
from django.db import connections
from django.test.utils import CaptureQueriesContext

from reporting import matching
from tests.reporting.conftest import BASE_TIME, report
from vault.db_router import reporting_database

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]


@pytest.fixture
def rows(build):
    made = []
    for n in range(12):
        made.append(
            build(
                amount=[100, 5_000, 70_000][n % 3],
                type=["Debit", "Credit"][n % 2],
                status=["Pending", "Returned", "Settled"][n % 3],
                name=["Ada", "Bob", "Cy"][n % 3],
                account_number=["123456789", "987654321"][n % 2],
                is_same_day=n % 4 == 0,
                created_at=BASE_TIME.replace(day=1 + n),
            )
        )
    return made


def _answer(client, params: dict) -> tuple[list[str], dict]:
    """The statements the request sent and its answer (without the time it was made)."""
    with CaptureQueriesContext(connections[reporting_database()]) as queries:
        response = report(client, pageSize=4, **params)
    assert response.status_code == 200, response.content
    body = response.json()
    pagination = body["meta"]["pagination"]
    pagination["nextCursor"] = pagination["nextCursor"] and pagination["nextCursor"].split(":")[0]
    reads = [q["sql"] for q in queries.captured_queries if "transactions_transaction" in q["sql"]]
    return reads, {"data": body["data"], "pagination": pagination}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"amount:gt": "50", "amount:lt": "20000", "type": "Credit"}, {"amount:gt": "1000", "amount:lt": "90000"}),
        ({"amount:gt": "50", "amount:lt": "20000", "type": "Credit"}, {"amount:gt": "99", "amount:lt": "80000"}),
        ({"amount:gt": "50", "type": "Credit"}, {"amount:gt": "3000000000", "type": "Debit"}),
        (
            {"createdat:gt": "2026-01-02T00:00:00Z", "sort": "createdat", "sortDir": "ASC"},
            {"createdat:gt": "2026-01-05T10:00:00Z", "sort": "createdat", "sortDir": "ASC"},
        ),
        ({"createdat": "2026-01-03"}, {"createdat": "2026-01-05"}),
        ({"status:in": "Returned,Settled"}, {"status:in": "Pending,Returned"}),
        ({"status:in": "Returned,Settled"}, {"status:in": "Pending,Pending"}),
        ({"accountnumber": "123456789"}, {"accountnumber": "987654321"}),
        ({"issameday": "true"}, {"issameday": "false"}),
        ({"name:like": "a"}, {"name:like": "b"}),
        ({"numericid:in": "1,2"}, {"numericid:in": "3,3"}),
        ({"changenewvalue": '["a", "b"]'}, {"changenewvalue": '["c", "d"]'}),
        ({"changenewvalue": '[["a"], {"b": 1}]'}, {"changenewvalue": '[["c"], {"d": 2}]'}),
        ({"changenewvalue": '"a"'}, {"changenewvalue": "7"}),
    ],
)
def test_a_shape_seen_before_sends_the_statement_a_fresh_compile_sends(api_client, rows, first, second):
    matching._SHAPES.clear()
    _answer(api_client, first)
    cached = _answer(api_client, second)
    matching._SHAPES.clear()
    fresh = _answer(api_client, second)
    assert cached == fresh
    assert fresh[1]["pagination"]["totalRows"] == len(rows)


def test_a_shape_seen_before_is_not_compiled_again(api_client, rows, monkeypatch):
    matching._SHAPES.clear()
    first = _answer(api_client, {"amount:gt": "50", "type": "Credit"})[1]
    compiled = []
    monkeypatch.setattr(matching, "compiled_matching", lambda *args: compiled.append(args))
    second = _answer(api_client, {"amount:gt": "150", "type": "Debit"})[1]
    assert compiled == []
    assert first["pagination"]["totalFilteredRows"] == 6
    assert second["pagination"]["totalFilteredRows"] == 4
    assert {row["type"] for row in second["data"]} == {"Debit"}
