"""Reads for the transaction report, always scoped to one company and sent to the reporting database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import connections, transaction
from django.db.models import Case, F, Func, QuerySet, Sum, TextField, Value, When
from django.db.models.functions import Cast, Concat, NullIf

from reporting.cursors import SortKey, decode_cursor, encode_cursor
from reporting.models import TransactionCount
from reporting.projection import Projection
from reporting.registry import BY_FILTER, FieldType
from transactions.models import Transaction
from vault.csv_export import CsvSafe, csv_safe
from vault.db_router import reporting_database
from vault.error_codes import ErrorCode
from vault.errors import ApiError

CSV_CHUNK_SIZE = 5000
FILTERED_COUNT_LIMIT = 10_000  # CONTRACT 7: totalFilteredRows is exact up to here, a lower bound past it


@contextmanager
def report_read(database: str) -> Iterator[None]:
    """One read transaction for a report, with planner settings fit for it on PostgreSQL.

    A wide projection LEFT JOINs up to eight one-to-one tables; an exhaustive join-order search over them cost
    ~40 ms of planning for ~10 ms of execution. Django writes the transaction table first and each lookup after
    it, which is already the right order, so the written order is kept (join_collapse_limit 1). JIT compilation
    costs more than it saves on queries of this size."""
    connection = connections[database]
    if connection.vendor != "postgresql":
        # SQLite runs every transaction BEGIN IMMEDIATE (settings), which takes the write lock: a report read
        # there is plain autocommit reads, so no charge waits for it (M9).
        yield
        return
    enclosed = connection.in_atomic_block
    with transaction.atomic(using=database):
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT current_setting('join_collapse_limit'), current_setting('jit'), "
                "set_config('join_collapse_limit', '1', true), set_config('jit', 'off', true)"
            )
            previous = cursor.fetchone()[:2]
        yield
        if enclosed:
            # Local settings outlive a released savepoint: put them back for the rest of the enclosing transaction.
            # (On an error the savepoint rolls back, and that reverts them.)
            with connection.cursor() as cursor:
                cursor.execute(_SET_PLANNER, previous)


_SET_PLANNER = "SELECT set_config('join_collapse_limit', %s, true), set_config('jit', %s, true)"


def report_queryset(*, company: Any) -> QuerySet:
    """The company's transactions on the reporting database (the replica when REPORTING_DATABASE_URL is set)."""
    return Transaction.objects.using(reporting_database()).filter(company_id=company.pk)


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


def company_total_rows(*, company: Any, database: str) -> int:
    """Exact at any size: the sum of the company's few TransactionCount rows, which triggers keep."""
    counted = TransactionCount.objects.using(database).filter(company_id=company.pk).aggregate(n=Sum("row_count"))
    return counted["n"] or 0


def _filtered_total(filtered: QuerySet, *, exact: bool) -> tuple[int, bool]:
    """(totalFilteredRows, totalFilteredRowsIsLowerBound): counting stops after FILTERED_COUNT_LIMIT matches unless
    the request asks for the exact figure, so a broad filter on a large merchant costs a bounded index walk."""
    if exact:
        return filtered.count(), False
    counted = filtered[: FILTERED_COUNT_LIMIT + 1].count()
    if counted > FILTERED_COUNT_LIMIT:
        return FILTERED_COUNT_LIMIT, True
    return counted, False


@dataclass(frozen=True)
class ReportPage:
    rows: list[dict[str, Any]]
    total_filtered: int
    total_filtered_is_lower_bound: bool
    total: int
    next_cursor: str | None


def report_page(
    *,
    company: Any,
    filtered: QuerySet,
    filtered_any: bool,
    projection: Projection,
    sort: SortKey,
    page: int,
    page_size: int,
    cursor: str | None = None,
    digest: str,
    exact_count: bool = False,
) -> ReportPage:
    """One page: from `cursor` when given (keyset), else the zero-based `page` (offset)."""
    start = page * page_size
    if cursor:
        filtered_page, start = filtered.filter(decode_cursor(cursor, digest=digest, sort=sort)), 0
    else:
        filtered_page = filtered
    with report_read(filtered.db):
        total = company_total_rows(company=company, database=filtered.db)
        if filtered_any:
            total_filtered, lower_bound = _filtered_total(filtered, exact=exact_count)
        else:
            total_filtered, lower_bound = total, False
        rendered = connections[filtered.db].vendor == "postgresql"
        tuples = []
        if lower_bound or cursor or start < total_filtered:
            # One row more than the page tells whether another page follows.
            tuples = _page_tuples(company, filtered_page, projection, sort, start, page_size + 1, rendered)
    next_cursor = None
    if len(tuples) > page_size:
        tuples = tuples[:page_size]
        *_, last_key, last_id = tuples[-1]
        next_cursor = encode_cursor(digest=digest, key=last_key if sort.path else None, last_id=last_id)
    build = projection.row_builder(company, database_rendered=rendered)
    width = len(projection.selected)
    return ReportPage(
        rows=[build(values[:width]) for values in tuples],
        total_filtered=total_filtered,
        total_filtered_is_lower_bound=lower_bound,
        total=total,
        next_cursor=next_cursor,
    )


def _page_tuples(
    company: Any,
    filtered: QuerySet,
    projection: Projection,
    sort: SortKey,
    start: int,
    page_size: int,
    rendered: bool,
) -> list[tuple]:
    """The projection's values of each row, then the row's sort key (when not id) and id, for its cursor."""
    ordering = sort.ordering
    select = [
        _database_text(c.field) if rendered and c.database_renderable else c.field.query_path
        for c in projection.selected
    ]
    select += [sort.path, "id"] if sort.path else ["id"]
    if start:
        # Past the first page, find the page's ids first: skipping `start` rows then walks an index rather than the
        # table, and only the rows kept are read and joined.
        ids = list(filtered.order_by(*ordering).values_list("pk", flat=True)[start : start + page_size])
        return list(report_queryset(company=company).filter(pk__in=ids).order_by(*ordering).values_list(*select))
    return list(filtered.order_by(*ordering).values_list(*select)[:page_size])


def _database_text(f: Any) -> Any | None:
    """The SQL that renders a timestamp, date or UUID (projection.DATABASE_RENDERABLE) exactly as
    reporting.projection does in Python."""
    path = f.query_path
    if f.type == FieldType.TIMESTAMP:
        return Func(F(path), template=_PG_TIMESTAMP, output_field=TextField())
    if f.type == FieldType.DATE:
        return Func(F(path), template="to_char(%(expressions)s, 'YYYY-MM-DD')", output_field=TextField())
    if f.type == FieldType.UUID:
        return Cast(F(path), TextField())
    return None


def report_stream(
    *, company: Any, filtered: QuerySet, projection: Projection, ordering: list[Any]
) -> Iterator[list[Any]]:
    """Every matching row, flattened, read through a server-side cursor in chunks (constant memory).

    Inside a transaction: pgbouncer in transaction mode allows server-side cursors only there (CONTRACT 8), and
    outside one PostgreSQL would make the cursor WITH HOLD, materialising the whole result before the first row."""
    getters = projection.flat_getters(company)
    if connections[filtered.db].vendor != "postgresql":
        yield from _stream_in_closed_chunks(company, filtered, projection, ordering, getters)
        return
    with report_read(filtered.db):
        tuples = filtered.order_by(*ordering).values_list(*projection.paths).iterator(chunk_size=CSV_CHUNK_SIZE)
        for values in tuples:
            yield [get(values) for get in getters]


def _stream_in_closed_chunks(company, filtered, projection, ordering, getters) -> Iterator[list[Any]]:
    """SQLite: the matching ids first, then their rows a chunk at a time, each query read to the end before any row
    is yielded. An open cursor would hold SQLite's read lock for as long as a slow client takes to read the export,
    and a writer cannot commit past it."""
    ids = list(filtered.order_by(*ordering).values_list("pk", flat=True))
    for start in range(0, len(ids), CSV_CHUNK_SIZE):
        chunk = ids[start : start + CSV_CHUNK_SIZE]
        rows = list(
            report_queryset(company=company).filter(pk__in=chunk).order_by(*ordering).values_list(*projection.paths)
        )
        for values in rows:
            yield [get(values) for get in getters]


def _copy_expression(column: Any) -> Any:
    """The SQL that renders one CSV cell exactly as Projection.flat_getters does in Python."""
    f = column.field
    path = f.query_path
    if column.index is None:
        return Value(csv_safe(str(getattr(column.company, f.company_attr))), output_field=TextField())
    if f.render == "masked":
        return Case(
            When(**{path: ""}, then=Value(None, output_field=TextField())),
            default=Concat(Value("****"), F(path), output_field=TextField()),
            output_field=TextField(),
        )
    if f.type == FieldType.BOOLEAN:
        return Case(
            When(**{path: True}, then=Value("true")),
            When(**{path: False}, then=Value("false")),
            output_field=TextField(),
        )
    if f.type == FieldType.STRING:
        # "" and NULL both print as an empty cell, as Python's csv module writes them.
        return CsvSafe(NullIf(F(path), Value("")))
    return _database_text(f) or F(path)


_PG_TIMESTAMP = "to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')"


def report_copy_stream(
    *, company: Any, filtered: QuerySet, projection: Projection, ordering: list[Any]
) -> Iterator[bytes]:
    """PostgreSQL: the same CSV rows rendered by the database (COPY ... TO STDOUT), read in chunks as they arrive.
    A million rows cost the worker a byte copy each instead of a Python tuple and a dozen conversions."""
    annotations = {
        f"c{n}": _copy_expression(_BoundColumn(column, company)) for n, column in enumerate(projection.columns)
    }
    queryset = filtered.order_by(*ordering).annotate(**annotations).values_list(*annotations)
    sql, params = queryset.query.sql_with_params()
    connection = connections[filtered.db]
    with report_read(filtered.db), connection.cursor() as cursor:
        with cursor.cursor.copy(f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)", params) as copy:
            yield from copy


class _BoundColumn:
    def __init__(self, column: Any, company: Any) -> None:
        self.field = column.field
        self.index = column.index
        self.company = company
