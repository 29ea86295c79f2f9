"""The OpenAPI description of GET /reporting/transactions, generated from the field registry: the row shape, the
reserved query parameters and the `<field>[:<condition>]` filter grammar cannot drift from what the code accepts."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter

from reporting.kinds import KINDS
from reporting.registry import (
    ALWAYS_ON,
    BY_FILTER,
    FIELDS,
    GROUPS,
    QUERY_PARAMETERS,
    QueryParameter,
    ReportField,
)


def report_row_schema() -> dict[str, Any]:
    """A row: the flat keys, then one nested object per group; only the selected keys appear (SPEC 4.9)."""
    flat = {f.key: {**f.kind.row_schema, "nullable": True} for f in FIELDS if f.key and f.group is None}
    nested = {
        group: {
            "type": "object",
            "description": "Present when at least one of its keys is selected; unselected keys are left out.",
            "properties": {
                f.inner_key: {**f.kind.row_schema, "nullable": True} for f in FIELDS if f.key and f.group == group
            },
        }
        for group in GROUPS
        if group
    }
    return {
        "type": "object",
        "description": "Always-on keys, then the default set or the requested `columns` (with their companions).",
        "required": [key for key in ALWAYS_ON if any(f.key == key and f.group is None for f in FIELDS)],
        "properties": {**flat, **nested},
    }


def _filter_names_by_type() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for name, f in sorted(BY_FILTER.items()):
        names.setdefault(f.type, []).append(name)
    return names


_LIST_CONDITIONS = ("in", "between")  # comma-separated values
_VALUELESS_CONDITIONS = ("nn", "null", "empty")


def _filter_value(f: ReportField, condition: str) -> dict[str, Any]:
    if condition in _VALUELESS_CONDITIONS or condition in _LIST_CONDITIONS or condition == "like":
        return {"type": "string"}
    value = dict(f.kind.single_value)
    if f.width and value.get("type") == "string" and "format" not in value and "enum" not in value:
        value["maxLength"] = f.width
    return value


def filter_properties() -> dict[str, dict[str, Any]]:
    """Every accepted filter parameter name, `<field>` (eq) and `<field>:<condition>`, with what its value must be."""
    properties: dict[str, dict[str, Any]] = {}
    for name, f in sorted(BY_FILTER.items()):
        properties[name] = _filter_value(f, "eq")
        for condition in f.kind.conditions:
            properties[f"{name}:{condition}"] = _filter_value(f, condition)
    return properties


def _filters_description() -> str:
    widths = {name: f.width for name, f in BY_FILTER.items() if f.width}
    lines = [
        "Filters, each a query parameter `<field>[:<condition>]=<value>`; a bare `<field>` means `eq`. Names are "
        "case-insensitive; every condition must fit the field's type and every value parse as it, else 400 naming "
        "the field. `in` and `between` take comma-separated values (`in` at most 100); `nn`, `null` and `empty` "
        "ignore the value; `like` is a case-insensitive substring with `%` and `_` literal.",
        "",
        "| fields | value | conditions |",
        "| --- | --- | --- |",
    ]
    for kind, names in _filter_names_by_type().items():
        shown = ", ".join(f"{name} (up to {widths[name]})" if name in widths else name for name in names)
        lines.append(f"| {shown} | {KINDS[kind].filter_value} | {', '.join(KINDS[kind].conditions)} |")
    return "\n".join(lines)


REPORT_ROW = report_row_schema()


def _reserved_parameter(p: QueryParameter) -> OpenApiParameter:
    schema: dict[str, Any] = {"type": p.type, **({"enum": list(p.enum)} if p.enum else {}), **p.bounds}
    if p.items:  # comma-separated: style form without explode
        schema["items"] = {"type": "string", "enum": list(p.items)}
        return OpenApiParameter(
            p.name, schema, OpenApiParameter.QUERY, required=p.required, description=p.description, explode=False
        )
    return OpenApiParameter(p.name, schema, OpenApiParameter.QUERY, required=p.required, description=p.description)


def report_parameters(*, leave_out: tuple[str, ...] = ()) -> list[OpenApiParameter]:
    """The reserved parameters of the registry's table (but `leave_out`), then the filters as one exploded object."""
    reserved = [_reserved_parameter(p) for p in QUERY_PARAMETERS if p.name not in leave_out]
    filters = OpenApiParameter(
        "filters",
        {"type": "object", "properties": filter_properties(), "additionalProperties": False},
        OpenApiParameter.QUERY,
        style="form",
        explode=True,
        description=_filters_description(),
    )
    return [*reserved, filters]
