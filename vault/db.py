"""Small query helpers shared by the apps."""

from __future__ import annotations

from typing import TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def unique_row(rows: QuerySet[M]) -> M | None:
    """The row a filter on a unique key finds, or None: `first()` without the ORDER BY it adds, which a query
    that can match one row at most does not need (and a hot path pays to compile on every request)."""
    return next(iter(rows[:1]), None)
