"""Reads for the transaction report, always scoped to one company and sent to the reporting database: the read
transaction a report runs in, the rows a report shows, the company's total and a background export.
A page with its counts is reporting.page; every matching row as CSV is reporting.stream."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connections, transaction
from django.db.models import QuerySet, Sum

from reporting.matching import company_transactions
from reporting.models import ReportExport, TransactionCount
from transactions.models import MICRO_ENTRY, Transaction
from vault.errors import NotFound


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
            cursor.execute(PLANNER_FOR_REPORTS)
            previous = cursor.fetchone()[:2]
        yield
        if enclosed:
            # Local settings outlive a released savepoint: put them back for the rest of the enclosing transaction.
            # (On an error the savepoint rolls back, and that reverts them.)
            with connection.cursor() as cursor:
                cursor.execute(SET_PLANNER, previous)


PLANNER_FOR_REPORTS = (
    "SELECT current_setting('join_collapse_limit'), current_setting('jit'), "
    "set_config('join_collapse_limit', '1', true), set_config('jit', 'off', true)"
)
SET_PLANNER = "SELECT set_config('join_collapse_limit', %s, true), set_config('jit', %s, true)"


def report_rows(matching: QuerySet) -> QuerySet:
    """The rows of `matching` (company_transactions, maybe filtered) a report shows: without micro-entries, whose
    amounts are the payer's secret (CONTRACT 12), and rows without them would still give them away to an `amount`
    filter or sort."""
    return matching.exclude(MICRO_ENTRY)


def report_queryset(*, company: Any) -> QuerySet:
    """The company's transactions a report shows (report_rows)."""
    return report_rows(company_transactions(company=company))


def _micro_entries(*, company: Any, database: str) -> QuerySet:
    """The company's micro-entries, which the counters count and the report leaves out (a partial index)."""
    return Transaction.objects.using(database).filter(MICRO_ENTRY, company_id=company.pk)


def company_total_rows(*, company: Any, database: str) -> int:
    """Exact at any size: the sum of the company's few TransactionCount rows, which triggers keep."""
    counted = TransactionCount.objects.using(database).filter(company_id=company.pk).aggregate(n=Sum("row_count"))
    return (counted["n"] or 0) - _micro_entries(company=company, database=database).count()


def report_export_get(*, company: Any, export_uuid: Any) -> ReportExport:
    export = ReportExport.objects.filter(company=company, uuid=export_uuid).first()
    if export is None:
        raise NotFound("Export not found")
    return export
