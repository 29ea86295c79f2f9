"""Paging, sorting and totals (CONTRACT 7)."""

from __future__ import annotations

import random

import pytest

from tests.reporting.conftest import report

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(build):
    rng = random.Random(7)
    made = []
    for n in range(23):
        values = {"return_entry__return_code": rng.choice(["R01", "R02"])} if n % 3 == 0 else {}
        made.append(build(values, amount=rng.choice([100, 200, 300]), name=rng.choice(["A", "B", ""])))
    return made


def _all_pages(client, size, **params):
    seen, page = [], 0
    while True:
        response = report(client, page=page, pageSize=size, columns="returnCode", **params)
        assert response.status_code == 200, response.content
        data = response.json()["data"]
        if not data:
            return seen
        seen.extend(data)
        page += 1


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
@pytest.mark.parametrize("sort", [None, "amount", "name", "returncode", "createdat"])
def test_concatenated_pages_give_every_row_once_in_order(api_client, rows, direction, sort):
    params = {"sortDir": direction} | ({"sort": sort} if sort else {})
    pages = _all_pages(api_client, 4, **params)
    everything = report(api_client, **params, columns="returnCode").json()["data"]
    assert [r["numericId"] for r in pages] == [r["numericId"] for r in everything]
    assert sorted(r["numericId"] for r in pages) == sorted(t.pk for t in rows)
    reverse = direction == "DESC"
    if sort == "amount":
        keys = [(r["amount"], r["numericId"]) for r in pages]
        assert keys == sorted(keys, reverse=reverse)
    if sort is None:
        ids = [r["numericId"] for r in pages]
        assert ids == sorted(ids, reverse=reverse)
    if sort == "returncode":
        codes = [r["returnDetails"]["returnCode"] for r in pages]
        nulls = [c is None for c in codes]
        # nulls last ascending, first descending
        assert nulls == sorted(nulls, reverse=reverse)


def test_default_order_is_id_desc(api_client, rows):
    ids = [r["numericId"] for r in report(api_client).json()["data"]]
    assert ids == sorted((t.pk for t in rows), reverse=True)


def test_totals_count_company_and_filter(api_client, rows, other_company):
    from tests.reporting.conftest import build_transaction

    build_transaction(other_company, amount=100)
    body = report(api_client, page=1, pageSize=5, amount="100").json()
    expected = sum(1 for t in rows if t.amount == 100)
    assert body["meta"]["pagination"] == {
        "page": 1,
        "pageSize": 5,
        "totalFilteredRows": expected,
        "totalRows": len(rows),
    }
    assert body["errors"] is None and body["status"] == "success"
    assert body["meta"]["version"] and body["meta"]["timestamp"].endswith("Z")


def test_filtered_total_rows_may_lag_until_an_unfiltered_page_counts_again(api_client, build):
    build(amount=100)
    assert report(api_client, amount="100").json()["meta"]["pagination"]["totalRows"] == 1
    build(amount=100)
    lagging = report(api_client, amount="100").json()["meta"]["pagination"]
    assert (lagging["totalFilteredRows"], lagging["totalRows"]) == (2, 1)  # the company total, kept 30 s
    assert report(api_client).json()["meta"]["pagination"]["totalRows"] == 2
    assert report(api_client, amount="100").json()["meta"]["pagination"]["totalRows"] == 2


def test_page_past_the_end_is_empty(api_client, rows):
    body = report(api_client, page=50, pageSize=10).json()
    assert body["data"] == [] and body["meta"]["pagination"]["totalRows"] == len(rows)


@pytest.mark.parametrize(
    "params",
    [{"page": None}, {"pageSize": None}, {"pageSize": 0}, {"pageSize": 1001}, {"page": -1}, {"page": "x"},
     {"sortDir": "UP"}, {"sort": "colour"}, {"format": "xml"}],
)  # fmt: skip
def test_bad_paging_and_sort_parameters_are_400(api_client, company, params):
    query = {"page": 0, "pageSize": 10} | params
    query = {k: v for k, v in query.items() if v is not None}
    response = api_client.get("/reporting/transactions", query)
    assert response.status_code == 400, response.content
    assert response.json()["status"] == "error"


def test_page_size_1000_is_allowed(api_client, rows):
    assert report(api_client, pageSize=1000).status_code == 200


@pytest.mark.postgres
def test_report_planner_settings_stay_inside_the_report_transaction(api_client, build):
    """The report reads with a fixed join order and no JIT; the charge path on the same connection must not."""
    from django.db import connection

    build()
    with connection.cursor() as cursor:
        cursor.execute("SHOW join_collapse_limit")
        before = cursor.fetchone()[0]
    assert report(api_client, columns="returnCode,batchUuid,settlementUuid").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SHOW join_collapse_limit")
        assert cursor.fetchone()[0] == before == "8"
