"""A new field type is one class on reporting.kinds.FieldKind, and a field of it one line of the registry's table:
with nothing else changed, the report filters, sorts, pages by cursor, shows and exports the field, refuses a bad
value or condition of it, and documents it. The throwaway kind here (an amount in cents shown as dollars) is
defined inside a fixture and removed after it."""

from __future__ import annotations

import csv
import io
import re
import sys
from typing import Any

import pytest
from django.db.models import F, Func, TextField

import reporting.views  # noqa: F401 (its OpenAPI parameters are made as it is defined: before the throwaway field)
from reporting import registry
from reporting.kinds import KINDS, ORDERED, FieldKind, invalid
from reporting.openapi import filter_properties, report_row_schema
from reporting.registry import ReportField
from tests.reporting.conftest import report

pytestmark = pytest.mark.django_db

_DOLLARS = re.compile(r"\d{1,16}\.\d{2}")


def _dollars(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


@pytest.fixture
def dollars(monkeypatch) -> ReportField:
    """The kind as its class in reporting/kinds.py would be, and its field as its line in reporting/registry.py."""

    class DollarsKind(FieldKind):
        type = "dollars"
        conditions = ORDERED
        row_schema = {"type": "string"}
        filter_value = "dollars and cents, 12.34"
        python_text = staticmethod(_dollars)

        def parse(self, name: str, raw: str) -> int:
            if not _DOLLARS.fullmatch(raw):
                raise invalid(name, "value must be dollars and cents, like 12.34")
            return int(raw.replace(".", ""))

        def text_sql(self, path: str) -> Any:
            template = "to_char(%(expressions)s / 100.0, 'FM9999999999999990.00')"
            return Func(F(path), template=template, output_field=TextField())

    try:
        field = ReportField("amountInDollars", "amountindollars", DollarsKind.type, "amount")
        _line_added(monkeypatch, field)
        yield field
    finally:
        KINDS.pop(DollarsKind.type)


def _line_added(monkeypatch, field: ReportField) -> None:
    """The registry's table with the field's line, as every reporting module that read the table sees it."""
    table = registry.FIELDS
    for name, module in list(sys.modules.items()):
        if name.startswith("reporting.") and getattr(module, "FIELDS", None) is table:
            monkeypatch.setattr(module, "FIELDS", (*table, field))
    monkeypatch.setitem(registry.BY_KEY, field.key, field)
    monkeypatch.setitem(registry.BY_FILTER, field.filter, field)


def test_a_field_of_a_new_type_filters_sorts_and_pages_by_cursor(api_client, build, dollars):
    for cents in (2000, 99, 150):
        build(amount=cents)
    asked = {"columns": "amountInDollars", "amountindollars:gte": "1.00", "sort": "amountindollars", "sortDir": "ASC"}

    first = report(api_client, pageSize=1, **asked)
    assert first.status_code == 200, first.content
    pagination = first.json()["meta"]["pagination"]
    assert [row["amountInDollars"] for row in first.json()["data"]] == ["1.50"]
    assert pagination["totalFilteredRows"] == 2

    second = report(api_client, page=None, pageSize=1, cursor=pagination["nextCursor"], **asked)
    assert second.status_code == 200, second.content
    assert [row["amountInDollars"] for row in second.json()["data"]] == ["20.00"]
    assert second.json()["meta"]["pagination"]["nextCursor"] is None


def test_a_field_of_a_new_type_is_in_the_csv_export(api_client, build, dollars):
    build(amount=2000)
    build(amount=99)
    response = report(api_client, format="csv", columns="amountInDollars", sort="amountindollars", sortDir="ASC")
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [row["amountInDollars"] for row in rows] == ["0.99", "20.00"]


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("amountindollars", "1.5", "amountindollars: value must be dollars and cents, like 12.34"),
        ("amountindollars:like", "1", "amountindollars: condition like does not apply to dollars fields"),
    ],
)
def test_a_bad_value_or_condition_of_a_new_type_is_400_naming_the_filter(api_client, dollars, name, value, message):
    response = report(api_client, **{name: value})
    assert response.status_code == 400
    body = response.json()
    assert (body["message"], body["errors"][0]["field"]) == (message, "amountindollars")


def test_a_field_of_a_new_type_is_documented(dollars):
    assert report_row_schema()["properties"]["amountInDollars"] == {"type": "string", "nullable": True}
    assert filter_properties()["amountindollars:between"] == {"type": "string"}
    assert "amountindollars:like" not in filter_properties()
