"""CSV responses: the renderer that lets `format=csv` through and still answers errors as the JSON envelope, and
the one rule that keeps a cell from running as a spreadsheet formula (OWASP CSV injection)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

from django.db.models import Func, TextField
from django.http import Http404
from rest_framework.renderers import BaseRenderer
from rest_framework.views import APIView

from vault.envelope import EnvelopeJSONRenderer
from vault.error_codes import ErrorCode
from vault.errors import ApiError

# A cell starting with one of these is a formula to Excel, LibreOffice or Sheets; a leading ' makes it text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
FORMULA_ESCAPE = "'"


def csv_safe(value: Any) -> Any:
    """A text cell that a spreadsheet would run gets a leading `'`; other values are returned as they are."""
    if type(value) is str and value.startswith(FORMULA_STARTS):
        return FORMULA_ESCAPE + value
    return value


class _Echo:
    def write(self, value: str) -> str:
        return value


class CsvLineWriter:
    """Rows as CSV lines ending in `\n`, as PostgreSQL's COPY writes them: a field holding `\r` or `\n` is quoted
    (the csv module quotes only the characters of its line terminator, hence `\r\n` then trimmed), and every
    cell passes `csv_safe`. One per response: a csv writer is not shared between threads."""

    def __init__(self) -> None:
        self._writer = csv.writer(_Echo(), lineterminator="\r\n")

    def line(self, values: Iterable[Any]) -> bytes:
        return (self._writer.writerow([csv_safe(value) for value in values])[:-2] + "\n").encode()


class CsvText(Func):
    """A text column as a CSV cell rendered by COPY, as `csv_safe` and Python's csv module write it: "" and NULL
    are an empty cell, and a cell that starts a formula gets a leading `'`. The first character is compared as a
    code point (ascii()): a regular expression per cell cost a fifth of an export's time in PostgreSQL."""

    output_field = TextField()

    def as_sql(self, compiler, connection, **extra_context):
        sql, params = compiler.compile(self.source_expressions[0])
        starts = ", ".join(str(ord(start)) for start in FORMULA_STARTS)
        escape = FORMULA_ESCAPE.replace("'", "''")
        return (
            f"(CASE WHEN ascii({sql}) IN ({starts}) THEN '{escape}' || {sql} ELSE NULLIF({sql}, '') END)",
            (*params, *params, *params),
        )


class CSVRenderer(BaseRenderer):
    """Lets DRF's `format=csv` negotiation pass (the view streams the CSV itself). An error raised under
    `format=csv` is the JSON error envelope with `application/json`, as on every other route (CONTRACT 4)."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None and response.status_code >= 400:
            json_renderer = EnvelopeJSONRenderer()
            response["Content-Type"] = json_renderer.media_type
            return json_renderer.render(data, json_renderer.media_type, renderer_context)
        return data


class CsvOrJsonView(APIView):
    """A route that answers JSON, or CSV with `format=csv` (or `Accept: text/csv`); another format is a 400."""

    renderer_classes = [EnvelopeJSONRenderer, CSVRenderer]

    def perform_content_negotiation(self, request, force=False):
        try:
            return super().perform_content_negotiation(request, force)
        except Http404:
            raise ApiError("format must be json or csv", field="format", code=ErrorCode.INVALID) from None

    def wants_csv(self, request) -> bool:
        return request.accepted_renderer.format == "csv"
