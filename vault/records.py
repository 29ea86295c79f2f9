"""The shared pieces of every wire record (a route's answer, an event's data, a CSV row), so that a timestamp, an
empty text and a masked account number have one shape everywhere."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

# The one timestamp form (CONTRACT: ISO 8601 UTC with Z): always six fraction digits, so every timestamp has the same
# length and sorts as text. REST_FRAMEWORK's DATETIME_FORMAT is this, so serializer fields agree.
DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
# The same form as a regular expression (the OpenAPI document's pattern of every timestamp an answer carries).
DATETIME_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$"
# The same form written by PostgreSQL (reporting renders timestamps in SQL).
DATETIME_SQL = "to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"
# What stands for the hidden digits of an account number.
MASK_PREFIX = "****"


def iso_utc(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return moment.astimezone(UTC).strftime(DATETIME_FORMAT)


def text_or_none(value: str | None) -> str | None:
    """An empty text field reads as null on the wire."""
    return value or None


def texts_or_none(record: dict[str, Any]) -> dict[str, Any]:
    """The record with each of its empty texts as null (its other values as they are)."""
    return {key: None if value == "" else value for key, value in record.items()}


def mask(last_four: str) -> str:
    return f"{MASK_PREFIX}{last_four}"
