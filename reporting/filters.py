"""The `field[:condition]=value` filter grammar of SPEC 4.9 / CONTRACT 7 (reporting.query parses a request's filters
with it).

Every name, type and width comes from reporting.registry, and what a type accepts, parses and compares from its
kind (reporting.kinds); this module reads the grammar and turns (field, condition, value) into Django lookups.
Null semantics are SQL's (see reporting.registry)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db.models import Q

from reporting.kinds import ALL, NOTHING, Day, day_q, scalar_q
from reporting.registry import BY_FILTER, RESERVED_PARAMS, ReportField
from vault.errors import InvalidFilter

MAX_IN_VALUES = 100


@dataclass(frozen=True)
class ParsedFilter:
    field: ReportField
    name: str
    condition: str
    raw: str


def _fail(name: str, reason: str) -> InvalidFilter:
    return InvalidFilter(f"{name}: {reason}", field=name)


def _parse_one(f: ReportField, name: str, raw: str) -> Any:
    if f.width is not None and len(raw) > f.width:
        raise _fail(name, f"value longer than {f.width} characters")
    return f.kind.parse(name, raw)


def _split(name: str, raw: str, condition: str) -> list[str]:
    parts = raw.split(",")
    if condition == "in" and len(parts) > MAX_IN_VALUES:
        raise _fail(name, f"in takes at most {MAX_IN_VALUES} values")
    if condition == "between" and len(parts) != 2:
        raise _fail(name, "between takes two comma-separated values")
    return parts


def _lo(value: Any) -> Any:
    return value.start if isinstance(value, Day) else value


def _like_q(f: ReportField, path: str, fragment: str, company: Any) -> Q:
    # Django escapes % and _ for icontains, so both are literal.
    if f.distinct_values is None:
        return Q(**{f"{path}__icontains": fragment})
    values = apps.get_model(f.distinct_values).objects.filter(company=company, **{f"{path}__icontains": fragment})
    return Q(**{f"{path}__in": values.values(path)})


def condition_q(parsed: ParsedFilter, company: Any) -> Q:
    f, name, condition, raw = parsed.field, parsed.name, parsed.condition, parsed.raw
    kind = f.kind
    if condition not in kind.conditions:
        raise _fail(name, f"condition {condition} does not apply to {f.type} fields")
    path = f.query_path
    values = _split(name, raw, condition) if condition == "in" else [raw]
    whole = kind.whole_q(condition, values)
    if whole is not None:
        for value in values:
            _parse_one(f, name, value)
        return whole
    if condition in ("nn", "null", "empty"):
        return _presence_q(f, path, condition)
    if condition == "like":
        if f.width is not None and len(raw) > f.width:
            raise _fail(name, f"value longer than {f.width} characters")
        return _like_q(f, path, raw, company)
    if condition == "in":
        return _in_q(f, name, path, raw)
    if condition == "between":
        return _between_q(f, name, path, raw)
    return kind.compare_q(path, condition, _parse_one(f, name, raw))


def _presence_q(f: ReportField, path: str, condition: str) -> Q:
    """nn, null and empty: no value to parse."""
    if condition == "nn":
        return Q(**{f"{path}__isnull": False})
    if condition == "null":
        return Q(**{f"{path}__isnull": True})
    return f.kind.empty_q(path)


def _in_q(f: ReportField, name: str, path: str, raw: str) -> Q:
    values = [_parse_one(f, name, v) for v in _split(name, raw, "in")]
    if any(isinstance(v, Day) for v in values):
        q = NOTHING
        for v in values:
            q |= scalar_q(path, "eq", v)
        return q
    return Q(**{f"{path}__in": values})


def _between_q(f: ReportField, name: str, path: str, raw: str) -> Q:
    low, high = (_parse_one(f, name, v) for v in _split(name, raw, "between"))
    return Q(**{f"{path}__gte": _lo(low)}) & (
        day_q(path, "lte", high) if isinstance(high, Day) else Q(**{f"{path}__lte": high})
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
        if condition not in ALL:
            raise _fail(f.filter, f"unknown condition {condition}")
        for raw in params.getlist(param):
            if "\x00" in raw:
                # PostgreSQL text cannot hold NUL: no stored value has one, and psycopg refuses to send it.
                raise _fail(f.filter, "value contains a NUL character")
            parsed.append(ParsedFilter(f, f.filter, condition, raw))
    return parsed
