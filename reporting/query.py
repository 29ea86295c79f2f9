"""One report request parsed once (CONTRACT 7): its filters, columns, sort, page, count and cursor, each checked
before any row is read (400 in the error envelope, naming the parameter). The view builds it from the query string
and hands it on: the page and its counts (reporting.page), the CSV stream (reporting.stream), a background export
(kept as its [name, value] pairs, reporting.exports) and the cursor all read this one object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q
from django.http import QueryDict

from accounts.models import Company
from reporting.cursors import SortKey, decode_cursor, request_digest
from reporting.filters import ParsedFilter, condition_q, parse_filters
from reporting.matching import ReportMatching
from reporting.projection import Projection, columns_param, projection_for
from reporting.registry import BY_FILTER
from vault.db_router import reporting_database
from vault.error_codes import ErrorCode
from vault.errors import ApiError
from vault.pagination import page_params

# Every route's (CONTRACT 3), never part of a report's own parameters: a background export does not keep it.
_ENTITY_PARAM = "entityUuid"


@dataclass(frozen=True)
class ReportQuery:
    """What one report reads: the company's transactions matching `conditions`, in `sort`'s order, with
    `projection`'s columns; for a JSON page also which page (`page`, or `after` a cursor) and how it is counted."""

    company: Company
    parameters: tuple[tuple[str, str], ...]  # the query string's (name, value) pairs, in order
    filters: tuple[ParsedFilter, ...]
    conditions: tuple[Q, ...]  # the filters as conditions on the company's transactions, one a filter
    projection: Projection
    sort: SortKey
    page: int = 0
    page_size: int = 0
    page_shown: int | None = 0  # meta.pagination.page: null on a cursor's page asked for without `page`
    after: Q | None = None  # with a cursor: the rows after its row, in the sort's order
    digest: str = ""  # the filters, columns and sort a page's cursor is signed for (reporting.cursors)
    exact_count: bool = False

    @classmethod
    def for_page(cls, *, company: Company, params: QueryDict) -> ReportQuery:
        """GET /reporting/transactions as JSON: `page` (or `cursor`) and `pageSize`, `count`, then the rows'
        parameters, then the cursor against them."""
        cursor = params.get("cursor") or None
        page, page_size = page_params(params, page_required=cursor is None)
        exact_count = _exact_count(params.get("count"))
        rows = _rows(company, params)
        digest = request_digest(rows["parameters"], rows["sort"])
        return cls(
            company=company, **rows, page=page, page_size=page_size,
            page_shown=None if cursor and "page" not in params else page,
            after=decode_cursor(cursor, digest=digest, sort=rows["sort"]) if cursor else None, digest=digest,
            exact_count=exact_count,
        )  # fmt: skip

    @classmethod
    def for_csv(cls, *, company: Company, params: QueryDict) -> ReportQuery:
        """GET /reporting/transactions as CSV: every matching row (no page; `count` is checked all the same)."""
        _exact_count(params.get("count"))
        return cls.for_export(company=company, params=params)

    @classmethod
    def for_export(cls, *, company: Company, params: QueryDict) -> ReportQuery:
        """POST /reporting/exports: the rows' parameters (filters, columns, sort, sortDir) alone."""
        return cls(company=company, **_rows(company, params))

    @classmethod
    def of_export(cls, *, company: Company, parameters: list[list[str]]) -> ReportQuery:
        """A background export's query again, from its kept pairs (export_parameters)."""
        params = QueryDict(mutable=True)
        for name, value in parameters:
            params.appendlist(name, value)
        return cls.for_export(company=company, params=params)

    @property
    def filtered(self) -> bool:
        """Any filter at all (else the company's total is the count of matches)."""
        return bool(self.filters)

    @property
    def database(self) -> str:
        """The database the report reads: the replica when REPORTING_DATABASE_URL is set."""
        return reporting_database()

    def matching(self) -> ReportMatching:
        """The company's transactions (micro-entries included) that match the filters."""
        return ReportMatching(self.company, self.conditions)

    def export_parameters(self) -> list[list[str]]:
        """The query as a background export keeps it (ReportExport.parameters): its [name, value] pairs, in order."""
        return [[name, value] for name, value in self.parameters if name != _ENTITY_PARAM]


def _rows(company: Company, params: QueryDict) -> dict[str, Any]:
    """The query string's pairs and what chooses the rows and their shape, checked in this order (the first error
    is the one answered): `columns`, `sort` and `sortDir`, every filter's name and condition, each filter's value."""
    projection = projection_for(columns_param(params))
    sort = report_sort(sort=params.get("sort"), direction=params.get("sortDir"))
    filters = tuple(parse_filters(params))
    return {
        "parameters": tuple((name, value) for name, values in params.lists() for value in values),
        "projection": projection,
        "sort": sort,
        "filters": filters,
        "conditions": tuple(condition_q(item, company) for item in filters),
    }


def report_sort(*, sort: str | None, direction: str | None) -> SortKey:
    """CONTRACT 7: `id` or any filterable field, ASC/DESC, default id DESC (SortKey.ordering breaks ties by id)."""
    direction = (direction or "DESC").upper()
    if direction not in ("ASC", "DESC"):
        raise ApiError("sortDir must be ASC or DESC", field="sortDir", code=ErrorCode.INVALID)
    name = (sort or "id").lower()
    if name == "id":
        return SortKey(path=None, field=None, descending=direction == "DESC")
    if name not in BY_FILTER:
        raise ApiError(f"cannot sort by {sort}", field="sort", code=ErrorCode.INVALID)
    f = BY_FILTER[name]
    path = None if f.query_path == "id" else f.query_path
    return SortKey(path=path, field=f if path else None, descending=direction == "DESC")


def _exact_count(raw: str | None) -> bool:
    if raw in (None, ""):
        return False
    if raw != "exact":
        raise ApiError("count must be exact", field="count", code=ErrorCode.INVALID)
    return True
