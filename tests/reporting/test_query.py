"""A report request is checked as a whole before any row is read, and a request with several bad parameters is
answered with the first in a fixed order: page and pageSize, count, columns, sort and sortDir, every filter's name
and condition, each filter's value, then the cursor against them. The CSV form reads no page and no cursor."""

from __future__ import annotations

import pytest

from tests.reporting.conftest import URL

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"count": "x", "columns": "nope"}, "page"),
        ({"page": "0", "pageSize": "0", "count": "x", "columns": "nope"}, "pageSize"),
        ({"page": "0", "pageSize": "5", "count": "x", "columns": "nope"}, "count"),
        ({"page": "0", "pageSize": "5", "columns": "nope", "sort": "nope"}, "columns"),
        ({"page": "0", "pageSize": "5", "sort": "nope", "nosuchfilter": "1"}, "sort"),
        ({"page": "0", "pageSize": "5", "sortDir": "UP", "amount:gt": "abc"}, "sortDir"),
        ({"page": "0", "pageSize": "5", "amount:gt": "abc", "nosuchfilter": "1"}, "nosuchfilter"),
        ({"page": "0", "pageSize": "5", "amount:like": "1", "createdat:gt": "abc"}, "amount"),
        ({"page": "0", "pageSize": "5", "createdat:gt": "abc", "amount:like": "1"}, "createdat"),
        ({"pageSize": "5", "cursor": "not-a-cursor", "amount:gt": "abc"}, "amount"),
        ({"pageSize": "5", "cursor": "not-a-cursor"}, "cursor"),
        ({"format": "csv", "pageSize": "0", "count": "x", "columns": "nope"}, "count"),
        ({"format": "csv", "pageSize": "0", "cursor": "not-a-cursor", "columns": "nope"}, "columns"),
    ],
)
def test_the_first_bad_parameter_in_the_order_is_the_one_answered(api_client, params, field):
    response = api_client.get(URL, params)
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field


def test_a_csv_export_reads_no_page_and_no_cursor(api_client, build):
    build()
    response = api_client.get(URL, {"format": "csv", "pageSize": "0", "cursor": "not-a-cursor"})
    assert response.status_code == 200
    assert b"".join(response.streaming_content).count(b"\n") == 2


def test_a_background_export_keeps_the_query_string_but_entity_uuid(api_client, company):
    query = "amount:gt=100&columns=uuid&columns=amount&sort=amount&amount:lt=900"
    response = api_client.post(f"/reporting/exports?{query}&entityUuid={company.uuid}")
    assert response.status_code == 202, response.content
    assert response.json()["data"]["query"] == "amount:gt=100&columns=uuid&columns=amount&sort=amount&amount:lt=900"
