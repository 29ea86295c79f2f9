"""The `field[:condition]=value` filter grammar of SPEC 4.9 / CONTRACT 7 as a DRF filter backend.

Every name, type and width comes from reporting.registry; this module only parses values and turns
(field, condition, value) into Django lookups. Null semantics are SQL's (see reporting.registry)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.apps import apps
from django.db.models import Q
from rest_framework.filters import BaseFilterBackend

from reporting.registry import BY_FILTER, CONDITIONS, RESERVED_PARAMS, FieldType, ReportField
from vault import crypto
from vault.bounded_json import JsonRefused, json_loads_bounded
from vault.errors import InvalidFilter

MAX_IN_VALUES = 100
BIGINT_MAX = 2**63 - 1
_INT = re.compile(r"-?\d{1,19}")
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
NOTHING = Q(pk__in=[])


@dataclass(frozen=True)
class ParsedFilter:
    field: ReportField
    name: str
    condition: str
    raw: str


def _fail(name: str, reason: str) -> InvalidFilter:
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


def _parse_one(f: ReportField, name: str, raw: str) -> Any:
    if f.width is not None and len(raw) > f.width:
        raise _fail(name, f"value longer than {f.width} characters")
    return _VALUE_PARSERS.get(f.type, _parse_moment)(f.type, name, raw)


def _parse_text(kind: FieldType, name: str, raw: str) -> str:
    return raw


def _parse_uuid(kind: FieldType, name: str, raw: str) -> uuid.UUID:
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise _fail(name, "value is not a UUID") from None


def _parse_integer(kind: FieldType, name: str, raw: str) -> int:
    if not _INT.fullmatch(raw) or abs(int(raw)) > BIGINT_MAX:
        raise _fail(name, "value is not an integer")
    return int(raw)


def _parse_boolean(kind: FieldType, name: str, raw: str) -> bool:
    if raw.lower() not in ("true", "false"):
        raise _fail(name, "value must be true or false")
    return raw.lower() == "true"


def _parse_json(kind: FieldType, name: str, raw: str) -> Any:
    try:
        return json_loads_bounded(raw)
    except JsonRefused as exc:
        raise _fail(name, str(exc)) from None
    except ValueError:
        raise _fail(name, "value is not JSON") from None


def _parse_moment(kind: FieldType, name: str, raw: str) -> datetime | date | Day:
    """A date or timestamp field's value: a timestamp, or a date (on a timestamp field, the whole UTC day)."""
    try:
        if _TIMESTAMP.fullmatch(raw):
            moment = datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            return moment.date() if kind == FieldType.DATE else moment
        if _DATE.fullmatch(raw):
            day = date.fromisoformat(raw)
            if kind == FieldType.DATE:
                return day
            return Day(datetime(day.year, day.month, day.day, tzinfo=UTC))
    except ValueError:
        pass
    raise _fail(name, "value must be YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DD")


# How a filter value is read, by field type; any other type (date, timestamp) takes _parse_moment.
_VALUE_PARSERS = {
    FieldType.STRING: _parse_text,
    FieldType.ACCOUNT: _parse_text,
    FieldType.UUID: _parse_uuid,
    FieldType.INTEGER: _parse_integer,
    FieldType.ID: _parse_integer,
    FieldType.BOOLEAN: _parse_boolean,
    FieldType.JSON: _parse_json,
}


def _split(name: str, raw: str, condition: str) -> list[str]:
    parts = raw.split(",")
    if condition == "in" and len(parts) > MAX_IN_VALUES:
        raise _fail(name, f"in takes at most {MAX_IN_VALUES} values")
    if condition == "between" and len(parts) != 2:
        raise _fail(name, "between takes two comma-separated values")
    return parts


def _lo(value: Any) -> Any:
    return value.start if isinstance(value, Day) else value


def _day_q(path: str, condition: str, value: Day) -> Q:
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


def _scalar_q(path: str, condition: str, value: Any) -> Q:
    """One comparison on a plain column; a Day value covers its whole UTC day."""
    present = Q(**{f"{path}__isnull": False})
    if isinstance(value, Day):
        return _day_q(path, condition, value)
    if condition == "neq":
        return present & ~Q(**{path: value})
    lookup = {"eq": "exact", "gt": "gt", "gte": "gte", "lt": "lt", "lte": "lte"}[condition]
    return Q(**{f"{path}__{lookup}": value})


def _account_q(condition: str, values: list[str]) -> Q:
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


def _like_q(f: ReportField, path: str, fragment: str, company: Any) -> Q:
    # Django escapes % and _ for icontains, so both are literal.
    if f.distinct_values is None:
        return Q(**{f"{path}__icontains": fragment})
    values = apps.get_model(f.distinct_values).objects.filter(company=company, **{f"{path}__icontains": fragment})
    return Q(**{f"{path}__in": values.values(path)})


def condition_q(parsed: ParsedFilter, company: Any) -> Q:
    f, name, condition, raw = parsed.field, parsed.name, parsed.condition, parsed.raw
    if condition not in CONDITIONS[f.type]:
        raise _fail(name, f"condition {condition} does not apply to {f.type.value} fields")
    path = f.query_path
    if f.type == FieldType.ACCOUNT:
        values = _split(name, raw, condition) if condition == "in" else [raw]
        for value in values:
            _parse_one(f, name, value)
        return _account_q(condition, values)
    if condition in ("nn", "null", "empty"):
        return _presence_q(f, path, condition)
    if condition == "like":
        if f.width is not None and len(raw) > f.width:
            raise _fail(name, f"value longer than {f.width} characters")
        return _like_q(f, path, raw, company)
    if f.type == FieldType.JSON:
        value = _parse_one(f, name, raw)
        exact = Q(**{path: value})
        return exact if condition == "eq" else Q(**{f"{path}__isnull": False}) & ~exact
    if condition == "in":
        return _in_q(f, name, path, raw)
    if condition == "between":
        return _between_q(f, name, path, raw)
    return _scalar_q(path, condition, _parse_one(f, name, raw))


def _presence_q(f: ReportField, path: str, condition: str) -> Q:
    """nn, null and empty: no value to parse."""
    if condition == "nn":
        return Q(**{f"{path}__isnull": False})
    if condition == "null":
        return Q(**{f"{path}__isnull": True})
    if f.type == FieldType.JSON:
        return Q(**{path: {}})
    return Q(**{path: ""}) if f.type == FieldType.STRING else NOTHING


def _in_q(f: ReportField, name: str, path: str, raw: str) -> Q:
    values = [_parse_one(f, name, v) for v in _split(name, raw, "in")]
    if any(isinstance(v, Day) for v in values):
        q = NOTHING
        for v in values:
            q |= _scalar_q(path, "eq", v)
        return q
    return Q(**{f"{path}__in": values})


def _between_q(f: ReportField, name: str, path: str, raw: str) -> Q:
    low, high = (_parse_one(f, name, v) for v in _split(name, raw, "between"))
    return Q(**{f"{path}__gte": _lo(low)}) & (
        _day_q(path, "lte", high) if isinstance(high, Day) else Q(**{f"{path}__lte": high})
    )


def parse_filters(params: Any) -> list[ParsedFilter]:
    """Every non-reserved query parameter must be `<known field>[:<condition>]` (CONTRACT 7)."""
    parsed: list[ParsedFilter] = []
    for param in params:
        if param in RESERVED_PARAMS:
            continue
        name, _, condition = param.partition(":")
        f = BY_FILTER.get(name.lower())
        if f is None:
            raise InvalidFilter("invalid filter", field=param, known=(*BY_FILTER, *RESERVED_PARAMS))
        condition = condition.lower() or "eq"
        if condition not in CONDITIONS[FieldType.STRING]:
            raise _fail(f.filter, f"unknown condition {condition}")
        for raw in params.getlist(param):
            if "\x00" in raw:
                # PostgreSQL text cannot hold NUL: no stored value has one, and psycopg refuses to send it.
                raise _fail(f.filter, "value contains a NUL character")
            parsed.append(ParsedFilter(f, f.filter, condition, raw))
    return parsed


class ReportFilterBackend(BaseFilterBackend):
    """Applies the grammar; records the fields it filtered on so the selector knows which joins it needs."""

    def filter_queryset(self, request, queryset, view):
        parsed = parse_filters(request.query_params)
        if parsed:
            queryset = queryset.filter(*(condition_q(item, request.company) for item in parsed))
        request.reporting_filtered = bool(parsed)
        return queryset
