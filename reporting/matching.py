"""A report's matching rows (the company's transactions with the request's filter conditions), and their SQL
compiled once per process for each shape of conditions, with only the values bound per request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import cached_property
from typing import Any
from uuid import UUID

from django.db.models import Q, QuerySet

from transactions.models import Transaction
from vault.db_router import reporting_database


def company_transactions(*, company: Any) -> QuerySet:
    """Every transaction of the company on the reporting database (the replica when REPORTING_DATABASE_URL is set),
    micro-entries included: what a report's counts read, subtracting the micro-entries they match (report_page)."""
    return Transaction.objects.using(reporting_database()).filter(company_id=company.pk)


@dataclass(frozen=True)
class Compiled:
    """The SQL of a report's matching rows (company_transactions with its filters), split at its WHERE: the
    statement ends with its WHERE (no order, no limit)."""

    head: str
    where: str
    params: list[Any]

    @property
    def sql(self) -> str:
        return f"{self.head} WHERE {self.where}"

    @property
    def joins(self) -> bool:
        return " JOIN " in self.head


def compiled_matching(matching: QuerySet, database: str) -> Compiled:
    sql, params = matching.order_by().values("company_id").query.get_compiler(using=database).as_sql()
    head, where = sql.split(" WHERE ", 1)
    return Compiled(head, where, list(params))


class ReportMatching:
    """company_transactions with filter conditions (Q objects, a ReportQuery's); the queryset is built only when
    asked for.

    Building it and compiling its SQL was a fifth of a selective first page's Python, and the SQL is the same for
    every request whose conditions have the same shape: `compiled` reads it from a per-process cache (_SHAPES) and
    binds this request's values."""

    def __init__(self, company: Any, conditions: tuple[Q, ...] = ()) -> None:
        self.company = company
        self.conditions = conditions
        self.db = reporting_database()

    @cached_property
    def queryset(self) -> QuerySet:
        matching = company_transactions(company=self.company)
        return matching.filter(*self.conditions) if self.conditions else matching

    def compiled(self) -> Compiled:
        """The matching rows' SQL; raises EmptyResultSet when no row can match (Django has no SQL for that)."""
        values: list[Any] = [self.company.pk]
        try:
            shape = (self.db, tuple(_shape(condition, values) for condition in self.conditions))
        except _Unshaped:
            return compiled_matching(self.queryset, self.db)
        known = _SHAPES.get(shape)
        if known is not None and known.sql is not None:
            return Compiled(known.sql.head, known.sql.where, known.bind(values))
        compiled = compiled_matching(self.queryset, self.db)  # EmptyResultSet here caches nothing
        if known is None and len({(type(v), v) for v in values}) == len(values):  # parameters told apart
            if len(_SHAPES) >= SHAPES_KEPT:
                _SHAPES.clear()
            _SHAPES[shape] = _Shaped.of(compiled, values)
        return compiled


@dataclass(frozen=True)
class _Shaped:
    """A shape's SQL and the type each value is bound as (Django binds an integer as its column's type, psycopg's
    Int8 for a bigint, which the SQL sent spells `5000::int8`); `sql` None when the compiled parameters are not the
    values themselves in order (a lookup that transforms its value, like: '%...%', or writes it into the SQL):
    that shape is compiled per request."""

    sql: Compiled | None
    casts: tuple[type, ...]

    @classmethod
    def of(cls, compiled: Compiled, values: list[Any]) -> _Shaped:
        params = compiled.params
        if len(params) != len(values) or not all(map(_bound_as, params, values)):
            return cls(None, ())
        return cls(compiled, tuple(type(p) for p in params))

    def bind(self, values: list[Any]) -> list[Any]:
        return [v if type(v) is cast else cast(v) for v, cast in zip(values, self.casts, strict=True)]


def _bound_as(param: Any, value: Any) -> bool:
    """`param` is `value` as Django binds it: itself, or an integer as its column's integer type."""
    same_type = type(param) is type(value) or (type(value) is int and isinstance(param, int))
    return same_type and param == value


# Per process: (database, the conditions' shapes) -> how that shape is compiled; cleared when full (a few shapes
# repeat).
_SHAPES: dict[tuple[Any, ...], _Shaped] = {}
SHAPES_KEPT = 512


class _Unshaped(Exception):
    """A condition whose SQL may depend on its value (a queryset, a JSON document, ...): compiled per request."""


# Values bound as they are (PostgreSQL: Django passes them to the driver unchanged). Booleans are not among them:
# Django writes `= true` as the column itself, so a boolean is part of the shape.
_BOUND_TYPES = (int, str, datetime, date, UUID)
# Django refuses an integer outside its column's range (no SQL: EmptyResultSet or FullResultSet), so which of the
# columns' ranges a value falls in is part of its shape.
_INTEGER_BOUNDS = (-(2**31), -(2**15), 0, 2**15, 2**31)


def _shape(node: Any, values: list[Any]) -> Any:
    """The structure of a condition without its values, which are appended to `values` in the order Django binds
    them (the order of the tree)."""
    if isinstance(node, Q):
        return (node.connector, node.negated, tuple(_shape(child, values) for child in node.children))
    if not isinstance(node, tuple):
        raise _Unshaped  # an expression (Exists, ...)
    lookup, value = node
    if value is None or isinstance(value, bool):
        return (lookup, value)
    if isinstance(value, list | tuple):
        if not all(type(item) in _BOUND_TYPES for item in value):
            raise _Unshaped  # a JSON document (a list of lists, of objects) among them
        distinct = list(dict.fromkeys(value))  # Django binds an `in` list's distinct values, in order
        return (lookup, "in", tuple(_value_shape(item, values) for item in distinct))
    return (lookup, _value_shape(value, values))


def _value_shape(value: Any, values: list[Any]) -> Any:
    if type(value) not in _BOUND_TYPES:
        raise _Unshaped
    values.append(value)
    if type(value) is int:
        return int, sum(value >= bound for bound in _INTEGER_BOUNDS)
    return type(value)
