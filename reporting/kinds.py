"""Reporting fields by kind: everything the report knows of a field type, in one class per type on one base with
fixed hooks (the conditions it takes, how a filter value is parsed, compared and found empty, its text in Python
and in SQL, in a CSV export, as a cursor key, and in the OpenAPI document). The filters, the projection, the page,
the cursors and the OpenAPI document ask the field's kind (`KINDS[field.type]`, `ReportField.kind`) and never
branch on a type. A new field type is one class here: a subclass of FieldKind that names its `type` is in KINDS by
defining it. A new field, of a known type or a new one, is one line of reporting.registry."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from enum import StrEnum
from typing import Any, ClassVar

from django.core.exceptions import ImproperlyConfigured
from django.db.models import Case, F, Func, Q, TextField, Value, When
from django.db.models.functions import Cast

from vault import crypto
from vault.bounded_json import JsonRefused, json_loads_bounded
from vault.csv_export import CsvText
from vault.errors import InvalidFilter
from vault.records import DATETIME_SQL, iso_utc


class FieldType(StrEnum):
    """The names of the built-in types. KINDS is keyed by name, so a new kind may name its own (`type = "money"`)."""

    STRING = "string"
    UUID = "uuid"  # a string field of SPEC stored as a UUID column: the value must be a UUID (or a `like` fragment)
    ID = "id"  # a numeric id that SPEC lists among the strings (returnnumericid, latereturnsettlementnumericid)
    INTEGER = "integer"
    TIMESTAMP = "timestamp"
    DATE = "date"  # effectivedate: a timestamp filter on a date column
    JSON = "json"
    BOOLEAN = "boolean"
    ACCOUNT = "account"  # accountnumber: encrypted; equality through the keyed hash, like on the masked form


ALL = ("eq", "neq", "gt", "gte", "lt", "lte", "nn", "null", "empty", "like", "in", "between")
ORDERED = ("eq", "neq", "gt", "gte", "lt", "lte", "nn", "null", "in", "between")

NOTHING = Q(pk__in=[])
BIGINT_MAX = 2**63 - 1
_INT = re.compile(r"-?\d{1,19}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIMESTAMP_VALUE = "YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DD"
_INTEGER_VALUE = {"type": "string", "pattern": r"^-?\d{1,19}$"}
_MOMENT_VALUE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$"}
# datetime.isoformat() of a UTC time: seconds, then microseconds unless they are zero, then the offset.
_ISOFORMAT_SQL = (
    "to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS') || CASE WHEN date_trunc('second', "
    "%(expressions)s AT TIME ZONE 'UTC') = %(expressions)s AT TIME ZONE 'UTC' THEN '' "
    "ELSE to_char(%(expressions)s AT TIME ZONE 'UTC', '.US') END || '+00:00'"
)


def invalid(name: str, reason: str) -> InvalidFilter:
    return InvalidFilter(f"{name}: {reason}", field=name)


@dataclass(frozen=True)
class Day:
    """A `YYYY-MM-DD` value given to a timestamp filter: the whole UTC day [start, end)."""

    start: datetime

    @property
    def end(self) -> datetime | None:
        """The next day's start; None for 9999-12-31, the last day a datetime can hold (no upper bound)."""
        if self.start.date() == date.max:
            return None
        return self.start + timedelta(days=1)


def day_q(path: str, condition: str, value: Day) -> Q:
    """One comparison with a whole UTC day; on the last representable day there is no end to compare with."""
    present = Q(**{f"{path}__isnull": False})
    from_start = Q(**{f"{path}__gte": value.start})
    before_end = present if value.end is None else Q(**{f"{path}__lt": value.end})
    if condition == "eq":
        return from_start & before_end
    if condition == "neq":
        return present & ~(from_start & before_end)
    if condition == "gt":
        return NOTHING if value.end is None else Q(**{f"{path}__gte": value.end})
    if condition == "gte":
        return from_start
    if condition == "lt":
        return Q(**{f"{path}__lt": value.start})
    return before_end  # lte


def scalar_q(path: str, condition: str, value: Any) -> Q:
    """One comparison on a plain column; a Day value covers its whole UTC day."""
    present = Q(**{f"{path}__isnull": False})
    if isinstance(value, Day):
        return day_q(path, condition, value)
    if condition == "neq":
        return present & ~Q(**{path: value})
    lookup = {"eq": "exact", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte"}[condition]
    return Q(**{f"{path}__{lookup}": value})


def _timestamp(value: datetime) -> str:
    """vault.records.iso_utc, faster: isoformat is about twice as fast as strftime, and the
    database hands back UTC already (USE_TZ, UTC connection)."""
    text = value.isoformat(timespec="microseconds")
    if text.endswith("+00:00"):
        return text[:-6] + "Z"
    return iso_utc(value)


def _date(value: date) -> str:
    return value.isoformat()


def _csv_boolean(value: bool) -> str:
    return "true" if value else "false"


# Every field kind by its type's name, filled by the kinds themselves (FieldKind.__init_subclass__).
KINDS: dict[str, FieldKind] = {}


class FieldKind:
    """A field type's behaviour. The class attributes are data; the methods are the hooks a subclass may change.
    A subclass that names its `type` is that type's kind: defining it puts it in KINDS."""

    type: ClassVar[str]  # the name report fields give it (reporting.registry); FieldType for the built-in ones
    conditions: ClassVar[tuple[str, ...]]
    row_schema: ClassVar[dict[str, Any]]  # the JSON Schema of a row's value (OpenAPI)
    filter_value: ClassVar[str]  # what a filter value is, in the OpenAPI description's table
    single_value: ClassVar[dict[str, Any]] = {"type": "string"}  # the schema of one filter value (OpenAPI)
    # The value's text in the API from its Python value (None: the value as the database returns it).
    python_text: ClassVar[Callable[[Any], Any] | None] = None
    csv_python_text: ClassVar[Callable[[Any], Any] | None] = None  # a CSV cell's text, where it differs

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "type" in cls.__dict__:
            if cls.type in KINDS:
                raise ImproperlyConfigured(f"two reporting field kinds are named {cls.type}")
            KINDS[cls.type] = cls()

    def parse(self, name: str, raw: str) -> Any:
        """A filter value, checked: its Python value, or InvalidFilter naming the filter."""
        return raw

    def empty_q(self, path: str) -> Q:
        """`empty`: the value is blank (nothing is, unless the kind has a blank)."""
        return NOTHING

    def compare_q(self, path: str, condition: str, value: Any) -> Q:
        """eq, neq, gt, gte, lt, lte with a parsed value."""
        return scalar_q(path, condition, value)

    def whole_q(self, condition: str, values: list[str]) -> Q | None:
        """A kind that answers every condition itself (from the raw values, each already checked) returns its Q."""
        return None

    def text_sql(self, path: str) -> Any | None:
        """The SQL that writes the value exactly as `python_text` does (None: the kind has no such text)."""
        return None

    def copy_sql(self, path: str) -> Any:
        """What COPY writes for a CSV cell of this kind."""
        return self.text_sql(path) or F(path)

    def cursor_sql(self, path: str) -> Any | None:
        """PostgreSQL: what a page reads of its rows' sort key for the next cursor (None: the column itself)."""
        return None

    def cursor_value(self, value: Any) -> Any:
        """A cursor's key, as the signed cursor holds it (JSON), back to the value the sort compares."""
        return value

    @property
    def database_renderable(self) -> bool:
        """PostgreSQL can write this kind's value as the API's text."""
        return self.python_text is not None and self.text_sql("x") is not None


class StringKind(FieldKind):
    type = FieldType.STRING
    conditions = ALL
    row_schema = {"type": "string"}
    filter_value = "text"

    def empty_q(self, path: str) -> Q:
        return Q(**{path: ""})

    def copy_sql(self, path: str) -> Any:
        return CsvText(F(path))


class UuidKind(FieldKind):
    type = FieldType.UUID
    conditions = ("eq", "neq", "nn", "null", "empty", "like", "in")
    row_schema = {"type": "string", "format": "uuid"}
    filter_value = "a UUID (like: any fragment)"
    single_value = {"type": "string", "format": "uuid"}
    python_text = str

    def parse(self, name: str, raw: str) -> uuid.UUID:
        try:
            return uuid.UUID(raw)
        except ValueError:
            raise invalid(name, "value is not a UUID") from None

    def text_sql(self, path: str) -> Any:
        return Cast(F(path), TextField())

    def copy_sql(self, path: str) -> Any:
        return F(path)  # COPY writes a uuid as str() does; a cast to text would only convert it twice

    def cursor_value(self, value: Any) -> uuid.UUID:
        return uuid.UUID(value)


class IntegerKind(FieldKind):
    type = FieldType.INTEGER
    conditions = ORDERED
    row_schema = {"type": "integer"}
    filter_value = "an integer (amounts in cents)"
    single_value = _INTEGER_VALUE

    def parse(self, name: str, raw: str) -> int:
        if not _INT.fullmatch(raw) or abs(int(raw)) > BIGINT_MAX:
            raise invalid(name, "value is not an integer")
        return int(raw)


class IdKind(IntegerKind):
    type = FieldType.ID
    filter_value = "an integer"


class TimestampKind(FieldKind):
    type = FieldType.TIMESTAMP
    conditions = ORDERED
    row_schema = {"type": "string", "format": "date-time"}
    filter_value = _TIMESTAMP_VALUE
    single_value = _MOMENT_VALUE
    python_text = staticmethod(_timestamp)

    def parse(self, name: str, raw: str) -> datetime | Day:
        """A timestamp, or a date: the whole UTC day."""
        try:
            if _TIMESTAMP.fullmatch(raw):
                return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            if _DATE.fullmatch(raw):
                day = date.fromisoformat(raw)
                return Day(datetime(day.year, day.month, day.day, tzinfo=UTC))
        except ValueError:
            pass
        raise invalid(name, "value must be YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DD")

    def text_sql(self, path: str) -> Any:
        return Func(F(path), template=DATETIME_SQL, output_field=TextField())

    def cursor_sql(self, path: str) -> Any:
        """A timestamp is read as the text the cursor holds (`isoformat()` of the UTC time) rather than loaded as a
        datetime for every row of the page (~2 us a row in psycopg's Python loader)."""
        return Func(F(path), template=_ISOFORMAT_SQL, output_field=TextField())

    def cursor_value(self, value: Any) -> datetime:
        return datetime.fromisoformat(value)


class DateKind(FieldKind):
    type = FieldType.DATE
    conditions = ORDERED
    row_schema = {"type": "string", "format": "date"}
    filter_value = _TIMESTAMP_VALUE
    single_value = _MOMENT_VALUE
    python_text = staticmethod(_date)

    def parse(self, name: str, raw: str) -> date:
        """A date, or a timestamp's date."""
        moment = KINDS[FieldType.TIMESTAMP].parse(name, raw)
        return moment.start.date() if isinstance(moment, Day) else moment.date()

    def text_sql(self, path: str) -> Any:
        return Func(F(path), template="to_char(%(expressions)s, 'YYYY-MM-DD')", output_field=TextField())

    def copy_sql(self, path: str) -> Any:
        # COPY writes a date as date.isoformat() does under the export's DateStyle ISO: to_char cost the database
        # five times as much (0.25 us a row).
        return F(path)

    def cursor_value(self, value: Any) -> date:
        return date.fromisoformat(value)


class JsonKind(FieldKind):
    type = FieldType.JSON
    conditions = ("eq", "neq", "nn", "null", "empty", "like")
    row_schema: ClassVar[dict[str, Any]] = {}
    filter_value = "JSON"

    def parse(self, name: str, raw: str) -> Any:
        try:
            return json_loads_bounded(raw)
        except JsonRefused as exc:
            raise invalid(name, str(exc)) from None
        except ValueError:
            raise invalid(name, "value is not JSON") from None

    def empty_q(self, path: str) -> Q:
        return Q(**{path: {}})

    def compare_q(self, path: str, condition: str, value: Any) -> Q:
        exact = Q(**{path: value})
        return exact if condition == "eq" else Q(**{f"{path}__isnull": False}) & ~exact


class BooleanKind(FieldKind):
    type = FieldType.BOOLEAN
    conditions = ("eq", "neq", "nn", "null")
    row_schema = {"type": "boolean"}
    filter_value = "true or false"
    single_value = {"type": "string", "enum": ["true", "false"]}
    csv_python_text = staticmethod(_csv_boolean)

    def parse(self, name: str, raw: str) -> bool:
        if raw.lower() not in ("true", "false"):
            raise invalid(name, "value must be true or false")
        return raw.lower() == "true"

    def copy_sql(self, path: str) -> Any:
        return Case(
            When(**{path: True}, then=Value("true")),
            When(**{path: False}, then=Value("false")),
            output_field=TextField(),
        )


class AccountKind(FieldKind):
    """accountnumber: stored encrypted, so equality goes through the keyed hash and `like` through the last four
    of the masked form."""

    type = FieldType.ACCOUNT
    conditions = ("eq", "neq", "nn", "null", "empty", "like", "in")
    row_schema = {"type": "string", "description": "Masked to the last four: ****6789."}
    filter_value = "the full account number (like: matches the masked form, ****6789)"

    def whole_q(self, condition: str, values: list[str]) -> Q:
        has_account = ~Q(account_number_hash="")
        if condition == "nn":
            return has_account
        if condition in ("null", "empty"):
            # An absent account number is null; an encrypted number is never the empty string.
            return Q(account_number_hash="") if condition == "null" else NOTHING
        if condition == "like":
            # The masked form is "****" + last four: a fragment may start with stars only if the digits follow them.
            fragment = values[0]
            stars = len(fragment) - len(fragment.lstrip("*"))
            digits = fragment[stars:]
            if stars > 4 or "*" in digits:
                return NOTHING
            lookup = "account_last_four__startswith" if stars and digits else "account_last_four__contains"
            return has_account & Q(**{lookup: digits})
        hashes = [crypto.account_number_hash(v) for v in values]
        if condition == "eq":
            return Q(account_number_hash=hashes[0])
        if condition == "neq":
            return has_account & ~Q(account_number_hash=hashes[0])
        return Q(account_number_hash__in=hashes)
