"""Reads for the transaction report, always scoped to one company and sent to the reporting database."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core.cache import caches
from django.db import connections, transaction
from django.db.models import Case, F, Func, QuerySet, TextField, Value, When
from django.db.models.functions import Cast, Concat, NullIf

from reporting.projection import Projection
from reporting.registry import BY_FILTER, FieldType
from transactions.models import Transaction
from vault.csv_export import CsvSafe, csv_safe
from vault.db_router import reporting_database
from vault.error_codes import ErrorCode
from vault.errors import ApiError

CSV_CHUNK_SIZE = 5000
# totalRows of a filtered request may lag new transactions by this long: counting a million-row merchant on every
# filtered page costs more than the page itself. Unfiltered requests count exactly and refresh it (in the worker
# that served them; each worker keeps its own figure).
TOTAL_ROWS_TTL_SECONDS = 30


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


def report_ordering(*, sort: str | None, direction: str | None) -> list[Any]:
    """CONTRACT 7: `id` or any filterable field, ASC/DESC, default id DESC; ties broken by id in the same direction.
    Nulls sort last ascending and first descending on every database (PostgreSQL's default, so indexes serve)."""
    direction = (direction or "DESC").upper()
    if direction not in ("ASC", "DESC"):
        raise ApiError("sortDir must be ASC or DESC", field="sortDir", code=ErrorCode.INVALID)
    descending = direction == "DESC"
    name = (sort or "id").lower()
    if name == "id":
        path = "id"
    elif name in BY_FILTER:
        path = BY_FILTER[name].query_path
    else:
        raise ApiError(f"cannot sort by {sort}", field="sort", code=ErrorCode.INVALID)
    tie = "-id" if descending else "id"
    if path == "id":
        return [tie]
    expression = F(path).desc(nulls_first=True) if descending else F(path).asc(nulls_last=True)
    return [expression, tie]


def company_total_rows(*, company: Any, exact: bool = False) -> int:
    cache = caches["local"]
    key = f"reporting:total-rows:{company.pk}"
    cached = cache.get(key)
    if cached is not None and not exact:
        return cached
    total = report_queryset(company=company).count()
    if total != cached:
        cache.set(key, total, TOTAL_ROWS_TTL_SECONDS)
    return total


def report_page(
    *,
    company: Any,
    filtered: QuerySet,
    filtered_any: bool,
    projection: Projection,
    ordering: list[Any],
    page: int,
    page_size: int,
) -> tuple[list[dict[str, Any]], int, int]:
    """(rows, totalFilteredRows, totalRows) for one zero-based page."""
    with report_read(filtered.db):
        if filtered_any:
            total = company_total_rows(company=company)
            total_filtered = filtered.count()
        else:
            total = total_filtered = company_total_rows(company=company, exact=True)
        start = page * page_size
        rendered = connections[filtered.db].vendor == "postgresql"
        tuples = []
        if start < total_filtered:
            tuples = _page_tuples(company, filtered, projection, ordering, start, page_size, rendered)
    build = projection.row_builder(company, database_rendered=rendered)
    return [build(values) for values in tuples], total_filtered, total


def _page_tuples(
    company: Any,
    filtered: QuerySet,
    projection: Projection,
    ordering: list[Any],
    start: int,
    page_size: int,
    rendered: bool,
) -> list[tuple]:
    select = [
        _database_text(c.field) if rendered and c.database_renderable else c.field.query_path
        for c in projection.selected
    ]
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
