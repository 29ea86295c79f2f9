"""Column projection of SPEC 4.9 / CONTRACT 7: which keys a row has, which ORM paths to read for them, and
how a `values_list` tuple becomes a (nested) row or a flat CSV line."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from reporting.registry import (
    ALWAYS_ON,
    BY_KEY,
    DEFAULT_COLUMNS,
    FIELDS,
    GROUPS,
    MEANT_KEYS,
    ReportField,
)
from vault.error_codes import ErrorCode
from vault.errors import ApiError, did_you_mean
from vault.records import mask

RENDERERS: dict[str, Callable[[Any], Any]] = {
    "masked": lambda last_four: mask(last_four) if last_four else None,
}


def _converter(f: ReportField) -> Callable[[Any], Any] | None:
    if f.render:
        return RENDERERS[f.render]
    return f.kind.python_text


@dataclass(frozen=True)
class Column:
    field: ReportField
    index: int | None  # position in the values_list tuple; None when the value is the company's
    convert: Callable[[Any], Any] | None
    masked_render: bool  # the converter also handles "" (it turns an absent number into null)

    @property
    def database_renderable(self) -> bool:
        """PostgreSQL can write this value as the API's text (reporting.page renders it so on JSON pages)."""
        # Writing them in PostgreSQL rather than parsing them into Python objects only to format them again: that was
        # a third of the Python time of a wide page.
        return self.index is not None and not self.field.render and self.field.kind.database_renderable


class Projection:
    """The selected columns in output order and the ORM paths that feed them."""

    def __init__(self, keys: Iterable[str]) -> None:
        wanted = set(keys)
        order = {group: position for position, group in enumerate(GROUPS)}
        selected = sorted((f for f in FIELDS if f.key in wanted), key=lambda f: order[f.group])
        self.paths: list[str] = []
        self.columns: list[Column] = []
        for f in selected:
            index = None
            if f.company_attr is None:
                index = len(self.paths)
                self.paths.append(f.query_path)
            self.columns.append(Column(f, index, _converter(f), bool(f.render)))
        self.selected = [c for c in self.columns if c.index is not None]  # the columns `paths` feeds, in order
        self.groups = [group for group in GROUPS if group and any(c.field.group == group for c in self.columns)]
        self.keys = [c.field.key for c in self.columns]

    def _getter(self, column: Column, company: Any, convert: Callable[[Any], Any] | None) -> Callable[[tuple], Any]:
        if column.index is None:
            constant = getattr(company, column.field.company_attr)
            constant = convert(constant) if convert else constant
            return lambda values: constant
        if convert is None:
            return itemgetter(column.index)
        if column.masked_render:
            return lambda values, i=column.index, c=convert: c(values[i])
        return lambda values, i=column.index, c=convert: None if values[i] is None else c(values[i])

    def row_builder(self, company: Any, database_rendered: bool = False) -> Callable[[tuple], dict[str, Any]]:
        """tuple -> row dict with nested groups (up to 1,000 rows of ~70 keys a page). With `database_rendered`, the
        database-renderable columns arrive as the API's text and pass through. Values after the projection's (a sort
        key, an id) are not read."""
        key = (tuple(self.keys), database_rendered)
        make = _ROW_MAKERS.get(key)
        if make is None:
            if len(_ROW_MAKERS) >= ROW_MAKERS_KEPT:
                _ROW_MAKERS.clear()
            make = _ROW_MAKERS[key] = self._row_maker(database_rendered)
        constants = []
        for c in self.columns:
            if c.index is None:
                value = getattr(company, c.field.company_attr)
                constants.append(c.convert(value) if c.convert else value)
        return make(*constants)

    def _row_maker(self, database_rendered: bool) -> Callable[..., Callable[[tuple], dict[str, Any]]]:
        """A function of the company's values (the columns without an index, in order) that returns the row
        builder: one dict display of the row, each value read from the tuple by position or passed to a named
        converter. A getter call per key, as before, cost twice as much: a third of the Python of a selective page
        beyond the request path. Written and compiled once per projection and process (_ROW_MAKERS)."""
        constants = {id(c): f"k{n}" for n, c in enumerate(c for c in self.columns if c.index is None)}
        converters: dict[str, Any] = {}

        def value(c: Column) -> str:
            if c.index is None:
                return constants[id(c)]
            if c.convert is None or (database_rendered and c.database_renderable):
                return f"v[{c.index}]"
            name = f"f{len(converters)}"
            converters[name] = c.convert
            call = f"{name}(v[{c.index}])"
            return call if c.masked_render else f"(None if v[{c.index}] is None else {call})"

        def items(group: str | None) -> str:
            columns = [c for c in self.columns if c.field.group == group]
            return ", ".join(f"{(c.field.inner_key if group else c.field.key)!r}: {value(c)}" for c in columns)

        row = ", ".join([items(None), *(f"{group!r}: {{{items(group)}}}" for group in self.groups)])
        source = f"def make({', '.join(constants.values())}):\n    return lambda v: {{{row}}}\n"
        # The keys are the registry's, written as literals by repr(); the rest is names and positions made here.
        exec(compile(source, f"<row builder of {','.join(self.keys)}>", "exec"), converters)  # noqa: S102
        return converters["make"]

    def flat_getters(self, company: Any) -> list[Callable[[tuple], Any]]:
        """One getter per CSV column, compiled once per export: a million rows make the per-cell work count."""
        return [self._getter(c, company, c.field.kind.csv_python_text or c.convert) for c in self.columns]


# Per process: (a projection's keys, database_rendered) -> its row maker; cleared when full (a few projections repeat).
_ROW_MAKERS: dict[tuple[tuple[str, ...], bool], Callable[..., Callable[[tuple], dict[str, Any]]]] = {}
ROW_MAKERS_KEPT = 512


def columns_param(params: Any) -> str | None:
    """`columns=a,b`, also sent as `columns=a&columns=b` (how generated clients send the documented array)."""
    return ",".join(params.getlist("columns")) if "columns" in params else None


def projection_for(columns_param: str | None) -> Projection:
    """SPEC 4.9 rules 1-4: default + always-on without `columns`; requested + always-on + companions with it.
    Made once per `columns` and process (a Projection is not changed once made)."""
    projection = _PROJECTIONS.get(columns_param)
    if projection is None:
        projection = _new_projection(columns_param)
        if len(_PROJECTIONS) >= PROJECTIONS_KEPT:
            _PROJECTIONS.clear()
        _PROJECTIONS[columns_param] = projection
    return projection


_PROJECTIONS: dict[str | None, Projection] = {}
PROJECTIONS_KEPT = 512


def _new_projection(columns_param: str | None) -> Projection:
    if columns_param is None:
        return Projection((*ALWAYS_ON, *DEFAULT_COLUMNS))
    requested = [key.strip() for key in columns_param.split(",") if key.strip()]
    unknown = [key for key in requested if key not in BY_KEY]
    if unknown:
        valid = ", ".join(BY_KEY)
        raise ApiError(
            "invalid columns",
            code=ErrorCode.INVALID_COLUMNS,
            errors=[
                {
                    "field": "columns",
                    "code": ErrorCode.INVALID_COLUMNS,
                    "message": f"unknown column {key}{did_you_mean(key, BY_KEY, MEANT_KEYS)}; the columns are {valid}",
                }
                for key in unknown
            ],
        )
    companions = [companion for key in requested for companion in BY_KEY[key].companions]
    return Projection((*ALWAYS_ON, *requested, *companions))
