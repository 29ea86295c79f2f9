"""Every matching row of the transaction report, streamed: the CSV of an export (GET ?format=csv, the background
export's file), rendered by the database through COPY on PostgreSQL and by Python elsewhere, in constant memory."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import Case, F, QuerySet, TextField, Value, When
from django.db.models.functions import Concat

from reporting.page import count_sql
from reporting.query import ReportQuery
from reporting.selectors import report_queryset, report_read, report_rows
from vault.copy_out import copy_out_pieces
from vault.csv_export import CsvLineWriter, csv_safe
from vault.records import MASK_PREFIX

CSV_CHUNK_SIZE = 5000


def report_stream(query: ReportQuery) -> Iterator[list[Any]]:
    """Every row of the query, flattened, read through a server-side cursor in chunks (constant memory).

    Inside a transaction: pgbouncer in transaction mode allows server-side cursors only there (CONTRACT 8), and
    outside one PostgreSQL would make the cursor WITH HOLD, materialising the whole result before the first row."""
    company, filtered, projection, ordering = query.company, _rows(query), query.projection, query.sort.ordering
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
            default=Concat(Value(MASK_PREFIX), F(path), output_field=TextField()),
            output_field=TextField(),
        )
    return f.kind.copy_sql(path)


def report_copy_stream(query: ReportQuery, *, first: bytes = b"") -> Iterator[bytes]:
    """PostgreSQL: `first`, then the same CSV rows rendered by the database (COPY ... TO STDOUT), in pieces of
    ~CSV_WRITE_BYTES as they arrive. A million rows cost the worker a byte copy each instead of a Python tuple and a
    dozen conversions."""
    company, filtered, projection, ordering = query.company, _rows(query), query.projection, query.sort.ordering
    annotations = {
        f"c{n}": _copy_expression(_BoundColumn(column, company)) for n, column in enumerate(projection.columns)
    }
    queryset = filtered.order_by(*ordering).annotate(**annotations).values_list(*annotations)
    try:
        sql, params = queryset.query.sql_with_params()
    except EmptyResultSet:  # filters no row can match (Django has no SQL for them): no rows
        yield first
        return
    connection = connections[filtered.db]
    enclosed = connection.in_atomic_block
    with report_read(filtered.db), connection.cursor() as cursor:
        cursor.execute(_EXPORT_SETTINGS)
        previous = cursor.fetchone()[:3]
        statement = f"COPY ({sql}) TO STDOUT WITH (FORMAT csv)"
        yield from copy_out_pieces(cursor, statement, params, piece_bytes=CSV_WRITE_BYTES, first=first)
        if enclosed:  # as report_read: local settings outlive the released savepoint
            cursor.execute(_SET_EXPORT_SETTINGS, previous)


# The planner charges 0.1 for each row a parallel worker hands to the leader, so it never splits a whole export;
# told that costs nothing, it renders the cells in two workers (Gather Merge keeps the order) and the leader only
# writes the CSV: 2M rows of the 10M-row export 26 s -> 21 s on the shared two-core machine (load 5). DateStyle ISO
# makes COPY write a date as YYYY-MM-DD (_copy_expression), whatever the role's or the server's DateStyle.
_EXPORT_SETTINGS = (
    "SELECT current_setting('parallel_tuple_cost'), current_setting('parallel_setup_cost'), "
    "current_setting('DateStyle'), set_config('parallel_tuple_cost', '0', true), "
    "set_config('parallel_setup_cost', '0', true), set_config('DateStyle', 'ISO', true)"
)
_SET_EXPORT_SETTINGS = (
    "SELECT set_config('parallel_tuple_cost', %s, true), set_config('parallel_setup_cost', %s, true), "
    "set_config('DateStyle', %s, true)"
)


class _BoundColumn:
    def __init__(self, column: Any, company: Any) -> None:
        self.field = column.field
        self.index = column.index
        self.company = company


CSV_WRITE_BYTES = 64 * 1024


def _rows(query: ReportQuery) -> QuerySet:
    """The query's matching rows without their micro-entries (report_rows)."""
    return report_rows(query.matching().queryset)


def report_csv_exceeds(query: ReportQuery, rows: int) -> bool:
    """More than `rows` rows match (counted no further than rows + 1)."""
    matching = query.matching().queryset
    database = matching.db
    with report_read(database):
        if connections[database].vendor != "postgresql":
            return report_rows(matching).order_by().values("pk")[: rows + 1].count() > rows
        try:
            sql, params = count_sql(matching, company=query.company, database=database, cap=rows + 1)
        except EmptyResultSet:  # filters no row can match
            return False
        with connections[database].cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0] > rows


def report_csv_count(query: ReportQuery) -> int:
    """How many rows the query's CSV has (every match, exactly)."""
    filtered = _rows(query)
    with report_read(filtered.db):
        return filtered.count()


def report_csv_chunks(query: ReportQuery) -> Iterator[bytes]:
    """The query's CSV (header line, then every row, flattened) in ~64 KiB pieces: PostgreSQL renders the rows
    itself (COPY); elsewhere Python does. One socket or file write per row would cost more than the row."""
    writer = CsvLineWriter()
    header = writer.line(query.projection.keys)
    if connections[query.database].vendor == "postgresql":
        yield from report_copy_stream(query, first=header)
        return
    buffer, size = [header], len(header)
    for row in report_stream(query):
        piece = writer.line(row)
        buffer.append(piece)
        size += len(piece)
        if size >= CSV_WRITE_BYTES:
            yield b"".join(buffer)
            buffer, size = [], 0
    yield b"".join(buffer)
