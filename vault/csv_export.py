"""CSV responses: the renderer that lets `format=csv` through and still answers errors as the JSON envelope, and
the one rule that keeps a cell from running as a spreadsheet formula (OWASP CSV injection)."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import Any

from django.db.models import Func, TextField
from rest_framework.renderers import BaseRenderer

from vault.envelope import EnvelopeJSONRenderer

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


class CsvSafe(Func):
    """`csv_safe` in PostgreSQL, for cells rendered by COPY; NULL stays NULL. The expression appears once in the
    SQL (regexp_replace rewrites only a first character that matches), so its parameters are bound once."""

    template = r"regexp_replace(%(expressions)s, '^([-=+@\t\r])', '''\1')"
    output_field = TextField()


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
