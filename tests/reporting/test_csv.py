"""`format=csv`: every matching row, same projection flattened, streamed."""

from __future__ import annotations

import csv
import io
from datetime import date
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.http import QueryDict, StreamingHttpResponse

from reporting.projection import projection_for
from reporting.query import ReportQuery
from reporting.registry import FIELDS
from reporting.stream import report_csv_chunks, report_stream
from sampledata.seeding import seed_transactions
from tests.reporting.conftest import build_transaction, report

pytestmark = pytest.mark.django_db


def _csv(response):
    assert response.status_code == 200
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_csv_streams_all_matching_rows_without_paging(api_client, build):
    made = [build(amount=100 + n) for n in range(7)]
    build(amount=5)
    lines = _csv(report(api_client, format="csv", page=None, pageSize=None, **{"amount:gte": "100"}))
    header, body = lines[0], lines[1:]
    assert len(body) == 7
    ids = [int(line[header.index("numericId")]) for line in body]
    assert ids == sorted((t.pk for t in made), reverse=True)


def test_csv_whose_filters_no_row_can_match_is_its_header_alone(api_client, build):
    build()
    assert (
        len(
            _csv(
                report(
                    api_client,
                    format="csv",
                    page=None,
                    pageSize=None,
                    **{"accountnumber": "", "accountnumber:empty": ""},
                )
            )
        )
        == 1
    )


def test_csv_headers_are_the_projected_keys_flattened(api_client, build):
    build({"return_entry__return_code": "R03"}, account_number="000111222333", is_same_day=True)
    header, row = _csv(report(api_client, format="csv", columns="returnCode,accountNumber"))
    assert "returnCode" in header and "accountNumber" in header and "panFirstSix" in header
    assert "settlementProcessedAt" in header and "returnDetails" not in header
    values = dict(zip(header, row, strict=True))
    assert values["returnCode"] == "R03"
    assert values["accountNumber"] == "****2333"
    assert values["isSameDay"] == "true"
    assert values["reversedAt"] == ""


def test_csv_default_columns_match_json_default(api_client, build):
    build()
    header = _csv(report(api_client, format="csv"))[0]
    row = report(api_client).json()["data"][0]
    flat = [k for k, v in row.items() if not isinstance(v, dict)]
    nested = [k for v in row.values() if isinstance(v, dict) for k in v]
    assert len(header) == len(flat) + len(nested)


def test_csv_still_validates_filters(api_client, build):
    assert report(api_client, format="csv", colour="red").status_code == 400
    assert report(api_client, format="csv", columns="bogus").status_code == 400


@pytest.mark.parametrize("params", [{"colour": "red"}, {"columns": "bogus"}, {"amount:gt": "lots"}])
def test_csv_request_that_fails_answers_the_json_error_envelope(api_client, params):
    response = report(api_client, format="csv", **params)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "error" and body["data"] is None and body["errors"]


def test_accept_text_csv_answers_csv_like_format_csv(api_client, build):
    made = [build(amount=100 + n) for n in range(3)]
    lines = _csv(api_client.get("/reporting/transactions", HTTP_ACCEPT="text/csv"))
    header, body = lines[0], lines[1:]
    assert sorted(int(line[header.index("numericId")]) for line in body) == sorted(t.pk for t in made)


@pytest.mark.postgres
def test_postgres_copy_csv_is_byte_identical_to_the_python_rendering(api_client, company):
    """On PostgreSQL the CSV is rendered by COPY; it must equal the portable iterator path cell for cell."""
    seed_transactions(company=company, count=150, seed=5)
    build_transaction(company, name='Comma, "Quote"\nline', external_unique_id="", is_duplicate=True)
    columns = ",".join(f.key for f in FIELDS if f.key)
    body = b"".join(report(api_client, format="csv", columns=columns).streaming_content).decode()

    projection = projection_for(columns)
    writer = csv.writer(_Lines(), lineterminator="\n")
    rows = report_stream(ReportQuery.for_export(company=company, params=QueryDict(urlencode({"columns": columns}))))
    expected = writer.writerow(projection.keys) + "".join(writer.writerow(row) for row in rows)
    assert body.count("\n") > 150
    assert body == expected


class _Lines:
    def write(self, value):
        return value


@pytest.mark.postgres
def test_an_export_the_client_leaves_mid_stream_leaves_the_connection_for_the_next_one(api_client, company):
    """The COPY is read at the libpq level (vault.copy_out): closing the export's pieces after the first (as the
    server does when the client goes) cancels the COPY, and the next export on the same database connection is
    whole."""
    seed_transactions(company=company, count=1000, seed=7)
    left = report_csv_chunks(ReportQuery.for_export(company=company, params=QueryDict("")))
    first = next(left)
    left.close()
    whole = b"".join(report(api_client, format="csv").streaming_content)
    assert len(first) < len(whole) and whole.startswith(first)
    assert whole.count(b"\n") == 1001


@pytest.mark.postgres
@pytest.mark.parametrize("datestyle", ["German", "SQL, DMY", "Postgres, MDY"])
def test_postgres_copy_csv_writes_dates_as_iso_whatever_the_datestyle(company, build, datestyle):
    made = build(effective_date=date(2026, 3, 4))
    params = QueryDict("columns=effectiveDate,createdAt")
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('DateStyle', %s, false)", [datestyle])
    body = b"".join(report_csv_chunks(ReportQuery.for_export(company=company, params=params))).decode()
    header, row = csv.reader(io.StringIO(body))
    values = dict(zip(header, row, strict=True))
    assert values["effectiveDate"] == "2026-03-04"
    assert values["numericId"] == str(made.pk)
    with connection.cursor() as cursor:
        cursor.execute("SHOW DateStyle")
        assert cursor.fetchone()[0].startswith(datestyle.split(",")[0])  # the export's own setting ended with it
