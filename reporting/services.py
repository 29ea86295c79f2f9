"""Writes of the reporting app: the leases that cap concurrent CSV exports (M9, N4), and the repair of the
transaction counters (which database triggers otherwise keep), and the queueing of a background export (whose
build, download and purge are in reporting/exports.py)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import Count, Sum
from django.utils import timezone

from accounts.models import Company
from reporting.models import CsvExportLease, ReportExport, TransactionCount
from reporting.query import ReportQuery
from reporting.tasks import report_export_build_task
from transactions.models import Transaction
from vault.db import drift_rechecked
from vault.errors import Throttled

# A lease outlives its last renewal by this long; a streaming export renews it at most once a minute.
CSV_EXPORT_LEASE_SECONDS = 5 * 60
CSV_EXPORT_RENEW_SECONDS = 60
# What a refused client is told to wait: exports of a typical merchant take seconds, not minutes.
CSV_EXPORT_RETRY_AFTER_SECONDS = 10


# pg_advisory_xact_lock key serialising the service-wide count of exports.
CSV_EXPORT_LOCK_KEY = 0x43535645  # "CSVE"


def _serialize_service_wide() -> None:
    """PostgreSQL: a transaction-scoped advisory lock. SQLite serializes writers by itself (IMMEDIATE)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CSV_EXPORT_LOCK_KEY])


def csv_export_lease_acquire(*, company: Any) -> CsvExportLease:
    """A lease for one more export (or export download) of the company, or 429 with Retry-After when the company
    runs CSV_EXPORTS_PER_COMPANY or the whole service CSV_EXPORTS_SERVICE_WIDE (N4: below gunicorn's request
    slots, so slow readers never hold them all)."""
    now = timezone.now()
    with transaction.atomic():
        # The company row serialises a company's acquisitions, the advisory lock everyone's, so parallel requests
        # cannot all see a free slot.
        Company.objects.select_for_update().filter(pk=company.pk).first()
        _serialize_service_wide()
        CsvExportLease.objects.filter(expires_at__lte=now).delete()
        if CsvExportLease.objects.filter(company_id=company.pk).count() >= settings.CSV_EXPORTS_PER_COMPANY:
            raise Throttled(
                f"At most {settings.CSV_EXPORTS_PER_COMPANY} CSV exports may run at once; retry shortly.",
                retry_after=CSV_EXPORT_RETRY_AFTER_SECONDS,
            )
        if CsvExportLease.objects.count() >= settings.CSV_EXPORTS_SERVICE_WIDE:
            raise Throttled(
                "The service is streaming as many CSV exports as it runs at once; retry shortly.",
                retry_after=CSV_EXPORT_RETRY_AFTER_SECONDS,
            )
        return CsvExportLease.objects.create(
            company_id=company.pk, started_at=now, expires_at=now + timedelta(seconds=CSV_EXPORT_LEASE_SECONDS)
        )


def _lease_renew(lease: CsvExportLease, *, expires_at: Any) -> None:
    """On PostgreSQL through a connection of its own: the request's own may be in the middle of the COPY that
    streams the export (reporting.stream.report_copy_stream), and it takes no other command until the COPY ends
    ("another command is already in progress" a minute into any export that long)."""
    alias = CsvExportLease.objects.db
    if connections[alias].vendor != "postgresql":
        CsvExportLease.objects.filter(pk=lease.pk).update(expires_at=expires_at)
        return
    own = connections.create_connection(alias)
    try:
        with own.cursor() as cursor:
            table = own.ops.quote_name(CsvExportLease._meta.db_table)
            cursor.execute(f"UPDATE {table} SET expires_at = %s WHERE id = %s", [expires_at, lease.pk])  # noqa: S608
    finally:
        own.close()


class LeasedStream:
    """The export's chunks, renewing the lease while they flow and releasing it when Django closes the response
    (a generator cannot do this: closing one that never started runs none of its code)."""

    def __init__(self, lease: CsvExportLease, chunks: Iterable[bytes]) -> None:
        self.lease = lease
        self.chunks = chunks
        self.renewed_at = lease.started_at

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self.chunks:
            now = timezone.now()
            if (now - self.renewed_at).total_seconds() >= CSV_EXPORT_RENEW_SECONDS:
                _lease_renew(self.lease, expires_at=now + timedelta(seconds=CSV_EXPORT_LEASE_SECONDS))
                self.renewed_at = now
            yield chunk

    def close(self) -> None:
        close_chunks = getattr(self.chunks, "close", None)
        if close_chunks is not None:
            close_chunks()
        CsvExportLease.objects.filter(pk=self.lease.pk).delete()


@dataclass(frozen=True)
class CountMismatch:
    company_id: int
    kept: int
    counted: int


def _kept(company_ids: list[int] | None = None) -> dict[int, int]:
    rows = TransactionCount.objects.all()
    if company_ids is not None:
        rows = rows.filter(company_id__in=company_ids)
    return dict(rows.values("company_id").annotate(n=Sum("row_count")).values_list("company_id", "n"))


def _counted(company_ids: list[int] | None = None) -> dict[int, int]:
    rows = Transaction.objects.all()
    if company_ids is not None:
        rows = rows.filter(company_id__in=company_ids)
    return dict(rows.values("company_id").annotate(n=Count("id")).values_list("company_id", "n"))


def verify_transaction_counts(*, repair: bool) -> list[CountMismatch]:
    """Compares each company's TransactionCount sum with count(*) and, with `repair`, sets it to the count
    (vault.db.drift_rechecked: a suspect is compared again under a SHARE lock on the transaction table)."""

    def repaired(company_id: int, count: int) -> None:
        TransactionCount.objects.filter(company_id=company_id).update(row_count=0)
        TransactionCount.objects.update_or_create(company_id=company_id, slot=0, defaults={"row_count": count})

    drifted = drift_rechecked(
        _kept, _counted, counted_table=Transaction._meta.db_table, repair=repaired if repair else None
    )
    return [CountMismatch(company_id, kept, counted) for company_id, kept, counted in drifted]


def report_export_create(*, query: ReportQuery) -> ReportExport:
    """Queue the export of the query (checked already, ReportQuery.for_export) for a worker, keeping its parameters."""
    with transaction.atomic():
        export = ReportExport.objects.create(
            company=query.company, parameters=query.export_parameters(), created_at=timezone.now()
        )
        transaction.on_commit(lambda: report_export_build_task.enqueue(export.pk), robust=True)
    return export
