"""A page of the transaction report and its counts (CONTRACT 7): the page's rows from an offset or a cursor, the
company's total and the (capped) number of matches, read in one statement on PostgreSQL."""

from __future__ import annotations

import re
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections, transaction
from django.db.models import BooleanField, F, Func, Q, QuerySet, Subquery

from reporting.cursors import SortKey, encode_cursor
from reporting.matching import Compiled, ReportMatching, compiled_matching
from reporting.models import TransactionCount
from reporting.projection import Projection
from reporting.query import ReportQuery
from reporting.selectors import (
    PLANNER_FOR_REPORTS,
    SET_PLANNER,
    company_total_rows,
    report_queryset,
    report_rows,
)
from transactions.models import MICRO_ENTRY, Transaction

FILTERED_COUNT_LIMIT = 10_000  # CONTRACT 7: totalFilteredRows is exact up to here, a lower bound past it


@dataclass(frozen=True)
class ReportPage:
    rows: list[dict[str, Any]]
    total_filtered: int
    total_filtered_is_lower_bound: bool
    total: int
    next_cursor: str | None


def report_page(query: ReportQuery) -> ReportPage:
    """One page of the query's matching rows (company_transactions with its filters) without their micro-entries:
    after its cursor's row when it has one (keyset), else from its zero-based `page` (offset)."""
    company, projection, sort, page_size = query.company, query.projection, query.sort, query.page_size
    cursor = query.after is not None
    start = 0 if cursor else query.page * page_size
    matching = query.matching()
    rendered = connections[matching.db].vendor == "postgresql"
    # One row more than the page tells whether another page follows.
    rows = _PageQuery(company, matching, query.after, projection, sort, start, page_size + 1, rendered)
    count = _Count(matching, filtered_any=query.filtered, exact=query.exact_count, start=None if cursor else start)
    read = _read_at_once if rendered else _read_in_steps
    total, counted, tuples = read(company=company, count=count, rows=rows, first_page=not cursor and not start)
    lower_bound = count.is_lower_bound(counted)
    next_cursor = None
    if len(tuples) > page_size:
        tuples = tuples[:page_size]
        *_, last_key, last_id = tuples[-1]
        next_cursor = encode_cursor(digest=query.digest, key=last_key if sort.path else None, last_id=last_id)
    build = projection.row_builder(company, database_rendered=rendered)
    return ReportPage(
        rows=[build(values) for values in tuples],
        total_filtered=FILTERED_COUNT_LIMIT if lower_bound else counted,
        total_filtered_is_lower_bound=lower_bound,
        total=total,
        next_cursor=next_cursor,
    )


@dataclass(frozen=True)
class _Count:
    """How a page counts its matches (its rows without the micro-entries): the company's total is the figure when
    the request has no filters (not `filtered_any`), capped at FILTERED_COUNT_LIMIT + 1 unless `exact`; `start` is
    the page's offset (None after a cursor), which tells whether any row can be on the page at all."""

    matching: ReportMatching  # with the micro-entries (Count.sql)
    filtered_any: bool
    exact: bool
    start: int | None

    def queryset(self) -> QuerySet:
        ids = report_rows(self.matching.queryset).values("pk")
        return ids if self.exact else ids[: FILTERED_COUNT_LIMIT + 1]

    def sql(self, company: Any, database: str, matching: Compiled) -> tuple[str, list[Any]]:
        """PostgreSQL: the same figure as queryset().count() (count_sql), from `matching` compiled."""
        cap = None if self.exact else FILTERED_COUNT_LIMIT + 1
        return _count_sql_of(matching, company=company, database=database, cap=cap)

    def is_lower_bound(self, counted: int) -> bool:
        return self.filtered_any and not self.exact and counted > FILTERED_COUNT_LIMIT

    def page_can_have_rows(self, counted: int) -> bool:
        return self.start is None or self.start < counted or self.is_lower_bound(counted)


def count_sql(matching: QuerySet, *, company: Any, database: str, cap: int | None) -> tuple[str, list[Any]]:
    """PostgreSQL: how many rows of `matching` are not micro-entries, counted no further than `cap` (exact when
    None), as one scalar query: the matching rows micro-entries included (counted no further than `cap` plus the
    company's micro-entries) less the micro-entries among them.

    Excluding micro-entries row by row needs each row's account_validation_id and amount, so a capped count read the
    table for every match (10,001 random heap reads behind an `amount` range; a bitmap of every `status` match
    first); without that test the count is an index-only scan of the filter's index, and the few micro-entries are
    counted through their partial index. Exact all the same: below the cap both counts are exact; at the cap the
    matches without micro-entries are at least `cap`."""
    return _count_sql_of(compiled_matching(matching, database), company=company, database=database, cap=cap)


def _count_sql_of(compiled: Compiled, *, company: Any, database: str, cap: int | None) -> tuple[str, list[Any]]:
    # The matching rows' SQL is compiled once; the micro-entries among them are the same statement with the
    # micro-entry condition added to its WHERE.
    rows_sql, rows_params, head, where = compiled.sql, compiled.params, compiled.head, compiled.where
    micro, micro_params = _micro_entry_condition(database)
    params: list[Any] = list(rows_params)
    limit = ""
    if cap is not None:
        company_micro_sql, company_micro_params = _company_micro_entries_sql(company, database)
        limit = f" LIMIT %s + (SELECT count(*) FROM ({company_micro_sql}) cm)"  # noqa: S608
        params += [cap, *company_micro_params]
    sql = (
        f"SELECT (SELECT count(*) FROM (SELECT 1 FROM ({rows_sql}) o{limit}) a)"  # noqa: S608
        f" - (SELECT count(*) FROM ({head} WHERE ({where}) AND {micro}) mm) AS n"
    )
    return sql, [*params, *rows_params, *micro_params]


_MICRO_ENTRY_CONDITIONS: dict[str, tuple[str, tuple[Any, ...]]] = {}


def _micro_entry_condition(database: str) -> tuple[str, tuple[Any, ...]]:
    """MICRO_ENTRY as an SQL condition on the transaction table, compiled once per database alias per process."""
    if database not in _MICRO_ENTRY_CONDITIONS:
        micro = Transaction.objects.using(database).filter(MICRO_ENTRY).values("company_id")
        sql, params = micro.query.get_compiler(using=database).as_sql()
        _MICRO_ENTRY_CONDITIONS[database] = (sql.split(" WHERE ", 1)[1], tuple(params))
    return _MICRO_ENTRY_CONDITIONS[database]


def _company_micro_entries_sql(company: Any, database: str) -> tuple[str, list[Any]]:
    """The ids of the company's micro-entries (_micro_entries) as SQL, without building a queryset."""
    micro, micro_params = _micro_entry_condition(database)
    quote = connections[database].ops.quote_name
    table = quote(Transaction._meta.db_table)
    sql = f"SELECT {table}.{quote('id')} FROM {table} WHERE {micro} AND {table}.{quote('company_id')} = %s"  # noqa: S608
    return sql, [*micro_params, company.pk]


def _read_in_steps(*, company: Any, count: _Count, rows: _PageQuery, first_page: bool) -> tuple[int, int, list[tuple]]:
    """(totalRows, matches counted, the page's tuples) in one statement each: SQLite, where a statement costs no
    round trip."""
    page = rows.queryset()
    total = company_total_rows(company=company, database=page.db)
    counted = count.queryset().count() if count.filtered_any else total
    return total, counted, list(page) if count.page_can_have_rows(counted) else []


def _read_at_once(*, company: Any, count: _Count, rows: _PageQuery, first_page: bool) -> tuple[int, int, list[tuple]]:
    """PostgreSQL: the company's counter, the (capped) match count and the page in one statement, sent in one
    message after the report's planner settings (report_read), so a page costs one round trip to the database
    instead of six (BEGIN, settings, counter, count, page, COMMIT). On a selective filter those round trips, not
    the reads, were most of the time. Outside a transaction the message is its own implicit transaction, which
    ends the settings with it."""
    try:
        return _read_in_one_statement(company=company, count=count, rows=rows, first_page=first_page)
    except EmptyResultSet:  # filters no row can match (Django runs no query for them): nothing to save
        return _read_in_steps(company=company, count=count, rows=rows, first_page=first_page)


def _read_in_one_statement(
    *, company: Any, count: _Count, rows: _PageQuery, first_page: bool
) -> tuple[int, int, list[tuple]]:
    database = rows.database
    connection = connections[database]
    counter = connection.ops.quote_name(TransactionCount._meta.db_table)
    figure = "f.n" if count.filtered_any else "t.n"
    # Model names and ORM-compiled SQL only; every value is a parameter.
    sql = [f"SELECT t.n, {figure}, p.* FROM (SELECT (SELECT COALESCE(SUM(row_count), 0)::bigint FROM {counter}"]  # noqa: S608
    micro_sql, micro_params = _company_micro_entries_sql(company, database)
    sql[0] += f" WHERE company_id = %s) - (SELECT count(*) FROM ({micro_sql}) m) AS n) t"  # noqa: S608
    params: list[Any] = [company.pk, *micro_params]
    matching = count.matching.compiled() if count.filtered_any or first_page else None
    if count.filtered_any:
        count_sql, count_params = count.sql(company, database, matching)
        sql.append(f"CROSS JOIN ({count_sql}) f")
        params += count_params
    statement = rows.first_page_statement(matching) if first_page else None
    if statement is None:
        compiler = rows.queryset().query.get_compiler(using=database)
        page_sql, page_params = compiler.as_sql()
        converters = compiler.get_converters([s[0] for s in compiler.select[: compiler.col_count]])
    else:
        page_sql, page_params, converters = statement
    gate, gate_params = _page_gate(count)
    # OFFSET 0 keeps the page a subquery of its own, so the gate is a one-time filter that skips it entirely, not a
    # join filter applied after it ran.
    sql.append(f"LEFT JOIN LATERAL (SELECT * FROM ({page_sql}) q WHERE {gate} OFFSET 0) p ON true")  # noqa: S608
    params += [*page_params, *gate_params]
    enclosed = connection.in_atomic_block
    with transaction.atomic(using=database) if enclosed else nullcontext(), connection.cursor() as cursor:
        cursor.execute(f"{PLANNER_FOR_REPORTS}; {' '.join(sql)}", params)
        previous = cursor.fetchone()[:2]
        cursor.nextset()
        fetched = cursor.fetchall()
        if enclosed:
            cursor.execute(SET_PLANNER, previous)
    total, counted = fetched[0][:2]
    page_rows = [row[2:] for row in fetched if row[-1] is not None]  # the last column is the row's id
    if converters:
        page_rows = _converted(page_rows, converters, connection)
    return total, counted, page_rows


def _converted(rows: list[tuple], converters: dict[int, tuple[list[Any], Any]], connection: Any) -> list[tuple]:
    """SQLCompiler.apply_converters on fetched rows, with the connection of this thread."""
    converted = []
    for row in rows:
        values = list(row)
        for position, (functions, expression) in converters.items():
            value = values[position]
            for convert in functions:
                value = convert(value, expression, connection)
            values[position] = value
        converted.append(tuple(values))
    return converted


def _page_gate(count: _Count) -> tuple[str, list[int]]:
    """SQL: whether the page can hold any row (Count.page_can_have_rows), so a page past the last match costs
    nothing rather than an offset walk over every match."""
    if count.start is None:
        return "true", []
    if not count.filtered_any:
        return "t.n > %s", [count.start]
    if count.exact:
        return "f.n > %s", [count.start]
    return "(f.n > %s OR f.n > %s)", [count.start, FILTERED_COUNT_LIMIT]


class _PageQuery:
    """The page's query (not run): the projection's values of each row, then the row's sort key (when not id) and
    id, for its cursor; `limit` rows from `start` of `filtered` in the sort's order."""

    def __init__(
        self,
        company: Any,
        matching: ReportMatching,
        after: Q | None,
        projection: Projection,
        sort: SortKey,
        start: int,
        limit: int,
        rendered: bool,
    ) -> None:
        self.company, self.matching, self.after, self.projection, self.sort = company, matching, after, projection, sort
        self.start, self.limit, self.rendered = start, limit, rendered
        self.database = matching.db

    @property
    def filtered(self) -> QuerySet:
        """The matching rows the report shows (report_rows), after the cursor's row when there is one."""
        filtered = report_rows(self.matching.queryset)
        return filtered if self.after is None else filtered.filter(self.after)

    def _select(self) -> list[Any]:
        select = [
            _database_text(c.field) if self.rendered and c.database_renderable else c.field.query_path
            for c in self.projection.selected
        ]
        return select + (
            [_cursor_key(self.sort) if self.rendered else self.sort.path, "id"] if self.sort.path else ["id"]
        )

    def queryset(self) -> QuerySet:
        ordering, select, start, limit = self.sort.ordering, self._select(), self.start, self.limit
        if start:
            # Past the first page, find the page's ids first: skipping `start` rows then walks an index rather than
            # the table, and only the rows kept are read and joined.
            ids = self.filtered.order_by(*ordering).values("pk")[start : start + limit]
            on_page = Q(pk__in=ids)
            if self.rendered:
                # The page's ids as an array computed once, up front: `id IN (subquery)` under the report's fixed
                # join order (join_collapse_limit 1) became a hash semi-join behind a scan of the whole company
                # (0.9 s).
                on_page = Func(
                    F("pk"), Subquery(ids), template="(%(expressions)s))", arg_joiner=" = ANY(ARRAY",
                    output_field=BooleanField(),
                )  # fmt: skip
            return report_queryset(company=self.company).filter(on_page).order_by(*ordering).values_list(*select)
        return self.filtered.order_by(*ordering).values_list(*select)[:limit]

    def first_page_statement(self, matching: Compiled) -> tuple[str, list[Any], dict] | None:
        """PostgreSQL, the first page (no offset, no cursor): (SQL, params, converters) from the company's page
        statement for these columns and this sort, compiled once per process (_page_statement), and the matching
        rows' WHERE; None when the matching rows' SQL joins another table (its aliases are its own)."""
        if matching.joins:
            return None
        statement = _page_statement(self.company, self.database, self.projection, self.sort, self._select)
        if statement is None:
            return None
        sql = f"{statement.head} WHERE ({statement.where}) AND ({matching.where}){statement.order} LIMIT %s"
        params = [*statement.head_params, *statement.where_params, *matching.params, *statement.order_params]
        return sql, [*params, self.limit], statement.converters


@dataclass(frozen=True)
class _PageStatement:
    """A company's report rows (report_queryset) with a projection's columns in a sort's order, compiled, in three
    parts: up to the WHERE, the WHERE, and the ORDER BY; and the converters of the selected values."""

    head: str
    head_params: tuple[Any, ...]
    where: str
    where_params: tuple[Any, ...]
    order: str
    order_params: tuple[Any, ...]
    converters: dict[int, tuple[list[Any], Any]]


# Per process: (database, company, columns, sort) -> its page statement; cleared when full (a few shapes repeat).
_PAGE_STATEMENTS: dict[tuple[Any, ...], _PageStatement | None] = {}
PAGE_STATEMENTS_KEPT = 512


def _page_statement(
    company: Any, database: str, projection: Projection, sort: SortKey, select: Any
) -> _PageStatement | None:
    """Building the page's queryset and compiling it was a millisecond or more of a selective request's ~10; the
    SQL is the same for every request with these columns and sort, only the filters' WHERE differs. None when the
    compiled SQL cannot be split where expected."""
    key = (database, company.pk, tuple(projection.keys), sort.path, sort.descending)
    if key not in _PAGE_STATEMENTS:
        if len(_PAGE_STATEMENTS) >= PAGE_STATEMENTS_KEPT:
            _PAGE_STATEMENTS.clear()
        _PAGE_STATEMENTS[key] = _new_page_statement(company, database, sort, select())
    return _PAGE_STATEMENTS[key]


def _new_page_statement(company: Any, database: str, sort: SortKey, select: list[Any]) -> _PageStatement | None:
    queryset = report_queryset(company=company).using(database).order_by(*sort.ordering).values_list(*select)
    compiler = queryset.query.get_compiler(using=database)
    sql, params = compiler.as_sql()
    if sql.count(" WHERE ") != 1 or sql.count(" ORDER BY ") != 1:
        return None
    head, rest = sql.split(" WHERE ")
    where, order = rest.split(" ORDER BY ")
    order = f" ORDER BY {order}"
    if order.find(" WHERE ") != -1 or " LIMIT " in order or " OFFSET " in order:
        return None
    n_head, n_where = _placeholders(head), _placeholders(where)
    if n_head + n_where + _placeholders(order) != len(params):
        return None
    converters = compiler.get_converters([s[0] for s in compiler.select[: compiler.col_count]])
    return _PageStatement(
        head=head, head_params=tuple(params[:n_head]),
        where=where, where_params=tuple(params[n_head : n_head + n_where]),
        order=order, order_params=tuple(params[n_head + n_where :]),
        converters=converters,
    )  # fmt: skip


def _placeholders(sql: str) -> int:
    """How many parameters a piece of compiled SQL takes (%s; %% is a literal percent sign)."""
    return _PLACEHOLDER.findall(sql).count("%s")


_PLACEHOLDER = re.compile(r"%%|%s")


_DATABASE_TEXTS: dict[tuple[str, str], Any] = {}


def _database_text(f: Any) -> Any | None:
    """The SQL that renders a timestamp, date or UUID (projection.DATABASE_RENDERABLE) exactly as
    reporting.projection does in Python; made once per field and process (a query resolves a copy of it)."""
    key = (f.query_path, f.type)
    if key not in _DATABASE_TEXTS:
        _DATABASE_TEXTS[key] = _new_database_text(f)
    return _DATABASE_TEXTS[key]


def _new_database_text(f: Any) -> Any | None:
    return f.kind.text_sql(f.query_path)


_CURSOR_KEYS: dict[str, Any] = {}


def _cursor_key(sort: SortKey) -> Any:
    """PostgreSQL: what a page reads of its rows' sort key, which only its last row's nextCursor uses (the kind's
    cursor_sql, made once per path and process)."""
    if sort.path not in _CURSOR_KEYS:
        _CURSOR_KEYS[sort.path] = sort.field.kind.cursor_sql(sort.path) or sort.path
    return _CURSOR_KEYS[sort.path]
