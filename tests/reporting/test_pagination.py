"""Paging, sorting and totals (CONTRACT 7)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core import signing

from tests.reporting.conftest import BASE_TIME, report

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
        "totalFilteredRowsIsLowerBound": False,
        "nextCursor": body["meta"]["pagination"]["nextCursor"],
    }
    assert (body["meta"]["pagination"]["nextCursor"] is not None) == (expected > 10)
    assert body["errors"] is None and body["status"] == "success"
    assert body["meta"]["version"] and body["meta"]["timestamp"].endswith("Z")


def test_filtered_total_rows_counts_new_transactions_at_once(api_client, build):
    build(amount=100)
    assert report(api_client, amount="100").json()["meta"]["pagination"]["totalRows"] == 1
    build(amount=100)
    build(amount=200)
    fresh = report(api_client, amount="100").json()["meta"]["pagination"]
    assert (fresh["totalFilteredRows"], fresh["totalRows"]) == (2, 3)


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


@pytest.mark.postgres
def test_a_page_is_one_statement_on_postgresql(api_client, build):
    """The counter, the capped count and the page come back in one statement, read under the report's planner
    settings sent in the same message: one round trip to the database for the whole page."""
    from django.db import connections
    from django.test.utils import CaptureQueriesContext

    from vault.db_router import reporting_database

    made = [build(amount=100) for _ in range(3)] + [build(amount=200)]
    with CaptureQueriesContext(connections[reporting_database()]) as queries:
        body = report(api_client, amount="100", pageSize=2).json()
    reads = [q["sql"] for q in queries.captured_queries if "transactions_transaction" in q["sql"]]
    assert len(reads) == 1, reads
    assert reads[0].startswith("SELECT current_setting('join_collapse_limit')")
    assert "reporting_transactioncount" in reads[0]
    pagination = body["meta"]["pagination"]
    assert (pagination["totalRows"], pagination["totalFilteredRows"]) == (4, 3)
    assert [row["numericId"] for row in body["data"]] == [made[2].pk, made[1].pk]
    assert pagination["nextCursor"]


@pytest.mark.postgres
@pytest.mark.parametrize(
    "params",
    [
        {"amount:gt": "150"},
        {"name:like": "a", "sort": "amount", "sortDir": "ASC", "columns": "amount,name,createdAt,batchUuid"},
        {"returncode:nn": "", "columns": "returnCode,returnReason"},
        {"columns": "amount,name,cardNumber", "sort": "name"},
    ],
)
def test_a_first_page_from_the_cached_page_statement_is_the_compiled_page(api_client, rows, params, monkeypatch):
    """A first page is built from the page statement its columns and sort compiled once per process, with the
    filters' WHERE added: the same page, counts and cursor as the queryset compiled for the request.."""
    from reporting import page as pages

    pages._PAGE_STATEMENTS.clear()

    def page() -> tuple:
        body = report(api_client, pageSize=5, **params).json()
        pagination = body["meta"]["pagination"]
        cursor = pagination.pop("nextCursor")  # signed with the time
        return body["data"], pagination, cursor and cursor.split(":")[0]

    cached = [page(), page()]
    assert list(pages._PAGE_STATEMENTS.values()) != [None]
    monkeypatch.setattr(pages, "_page_statement", lambda *args: None)
    compiled = page()
    assert cached[0] == cached[1] == compiled
    assert compiled[0]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_planner_settings_end_with_a_report_read_outside_a_transaction(api_client, build):
    """Outside a transaction the report's message is its own implicit transaction: its settings end with it."""
    from django.db import connection

    build()
    assert report(api_client, columns="returnCode,batchUuid,settlementUuid").status_code == 200
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('join_collapse_limit'), current_setting('jit')")
        assert cursor.fetchone() == ("8", "on")


@pytest.mark.parametrize("params", [{}, {"amount": "100"}, {"amount": "100", "count": "exact"}])
def test_a_page_past_the_last_match_is_empty_with_its_totals(api_client, build, params):
    for amount in (100, 100, 200):
        build(amount=amount)
    body = report(api_client, page=5, pageSize=2, **params).json()
    matching = 2 if params else 3
    assert body["data"] == []
    pagination = body["meta"]["pagination"]
    assert (pagination["totalRows"], pagination["totalFilteredRows"]) == (3, matching)
    assert pagination["nextCursor"] is None
    assert len(report(api_client, page=0, pageSize=2, **params).json()["data"]) == 2


def _cursor_pages(client, size, **params):
    """Every page by following nextCursor from page 0; each page's row count, and the rows in order."""
    response = report(client, page=0, pageSize=size, columns="returnCode", **params)
    seen, sizes = [], []
    while True:
        assert response.status_code == 200, response.content
        body = response.json()
        seen.extend(body["data"])
        sizes.append(len(body["data"]))
        cursor = body["meta"]["pagination"]["nextCursor"]
        if cursor is None:
            return seen, sizes
        response = report(client, page=None, cursor=cursor, pageSize=size, columns="returnCode", **params)


@pytest.mark.parametrize("direction", ["ASC", "DESC"])
@pytest.mark.parametrize("sort", [None, "amount", "name", "returncode", "createdat", "effectivedate", "uuid"])
def test_following_cursors_gives_every_row_once_in_the_offset_order(api_client, rows, direction, sort):
    params = {"sortDir": direction} | ({"sort": sort} if sort else {})
    pages, sizes = _cursor_pages(api_client, 4, **params)
    everything = report(api_client, **params, columns="returnCode").json()["data"]
    assert [r["numericId"] for r in pages] == [r["numericId"] for r in everything]
    assert sorted(r["numericId"] for r in pages) == sorted(t.pk for t in rows)
    assert sizes == [4] * 5 + [3]  # 23 rows: the last page is short and has no next cursor


def test_cursor_works_with_filters_and_from_any_offset_page(api_client, rows):
    params = {"amount:in": "100,200", "sort": "amount"}
    expected = [r["numericId"] for r in report(api_client, **params).json()["data"]]
    second = report(api_client, page=1, pageSize=3, **params).json()
    followed = report(api_client, page=None, pageSize=3, cursor=second["meta"]["pagination"]["nextCursor"], **params)
    assert [r["numericId"] for r in followed.json()["data"]] == expected[6:9]
    assert followed.json()["meta"]["pagination"]["page"] is None


def test_a_page_that_ends_exactly_at_the_last_row_has_no_next_cursor(api_client, build):
    for _ in range(4):
        build()
    first = report(api_client, pageSize=2).json()["meta"]["pagination"]
    last = report(api_client, page=None, pageSize=2, cursor=first["nextCursor"]).json()
    assert len(last["data"]) == 2 and last["meta"]["pagination"]["nextCursor"] is None


@pytest.mark.parametrize(
    "changed",
    [{"amount": "200"}, {"columns": "amount"}, {"sort": "amount"}, {"sortDir": "ASC"}, {"amount:gt": "100"},
     {"Amount": "300"}],
)  # fmt: skip
def test_cursor_with_other_filters_columns_or_sort_is_400(api_client, rows, changed):
    made_for = {"amount": "100", "columns": "name"}
    cursor = report(api_client, pageSize=1, **made_for).json()["meta"]["pagination"]["nextCursor"]
    assert cursor
    same = report(api_client, page=None, pageSize=1, cursor=cursor, **made_for)
    assert same.status_code == 200, same.content
    refused = report(api_client, page=None, pageSize=1, cursor=cursor, **(made_for | changed))
    assert refused.status_code == 400, refused.content
    assert refused.json()["errors"][0]["field"] == "cursor"


def test_forged_or_garbled_cursor_is_400(api_client, rows):
    cursor = report(api_client, pageSize=1).json()["meta"]["pagination"]["nextCursor"]
    payload, _, signature = cursor.partition(":")
    for bad in ("nonsense", cursor[:-2] + "xx", payload.replace("e", "f", 1) + ":" + signature):
        response = report(api_client, page=None, pageSize=1, cursor=bad)
        assert response.status_code == 400, response.content


def test_another_companys_cursor_reads_only_this_company(api_client, other_api_client, rows, other_company):
    from tests.reporting.conftest import build_transaction

    mine = build_transaction(other_company)
    build_transaction(other_company)
    cursor = report(api_client, pageSize=1).json()["meta"]["pagination"]["nextCursor"]
    ids = {r["numericId"] for r in report(other_api_client, page=None, pageSize=10, cursor=cursor).json()["data"]}
    assert ids <= {mine.pk, mine.pk + 1} and not ids & {t.pk for t in rows}


@pytest.mark.parametrize("microsecond", [0, 120000])
@pytest.mark.parametrize("direction", ["ASC", "DESC"])
def test_a_cursor_after_a_timestamp_holds_it_as_isoformat_writes_it(api_client, build, microsecond, direction):
    """nextCursor names its row's sort key as `datetime.isoformat()` writes it (without microseconds when they are
    zero), whichever database read it, and the next page starts right after it."""
    moments = [BASE_TIME.replace(microsecond=microsecond) + timedelta(minutes=n) for n in range(3)]
    made = [build(created_at=moment) for moment in moments]
    order = made if direction == "ASC" else made[::-1]
    params = {"pageSize": 2, "sort": "createdat", "sortDir": direction, "columns": "createdAt"}
    cursor = report(api_client, **params).json()["meta"]["pagination"]["nextCursor"]
    assert signing.loads(cursor, salt="reporting.cursor")["k"] == order[1].created_at.isoformat()
    following = report(api_client, cursor=cursor, **params).json()["data"]
    assert [row["numericId"] for row in following] == [order[2].pk]
