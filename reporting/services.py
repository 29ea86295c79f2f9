"""Writes of the reporting app: the leases that cap concurrent CSV exports (M9, N4), background exports (N4), and
the repair of the transaction counters (which database triggers otherwise keep)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Sum
from django.http import QueryDict
from django.utils import timezone

from accounts.models import Company
from reporting.models import CsvExportLease, ReportExport, TransactionCount
from reporting.records import export_status
from reporting.selectors import report_csv_chunks, report_csv_query
from transactions.models import Transaction
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Throttled

logger = logging.getLogger("reporting.exports")

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
                expires = now + timedelta(seconds=CSV_EXPORT_LEASE_SECONDS)
                CsvExportLease.objects.filter(pk=self.lease.pk).update(expires_at=expires)
                self.renewed_at = now
            yield chunk

    def close(self) -> None:
        close_chunks = getattr(self.chunks, "close", None)
        if close_chunks is not None:
            close_chunks()
        CsvExportLease.objects.filter(pk=self.lease.pk).delete()


# --- background exports (N4) ------------------------------------------------------------------------------

FILE_READ_BYTES = 64 * 1024


def _exports_dir():
    directory = settings.VAR_DIR / "exports"
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


def _query_dict(pairs: list[list[str]]) -> QueryDict:
    params = QueryDict(mutable=True)
    for name, value in pairs:
        params.appendlist(name, value)
    return params


def report_export_create(*, company: Any, params: QueryDict) -> ReportExport:
    """Check the parameters as the streamed CSV would (400 on a bad one) and queue the export for a worker."""
    pairs = [[name, value] for name, values in params.lists() if name != "entityUuid" for value in values]
    report_csv_query(company=company, params=_query_dict(pairs))
    with transaction.atomic():
        export = ReportExport.objects.create(company=company, parameters=pairs, created_at=timezone.now())
        transaction.on_commit(lambda: _enqueue_build(export.pk), robust=True)
    return export


def _enqueue_build(export_id: int) -> None:
    from reporting.tasks import report_export_build_task  # tasks imports this module

    report_export_build_task.enqueue(export_id)


def report_export_build(*, export_id: int) -> None:
    """Worker side: write the export's file (0600 under var/exports/), then mark it succeeded with its row count
    and download deadline, or failed. Claimed by a compare-and-set, so a task run twice builds it once."""
    now = timezone.now()
    report_exports_purge(now=now)
    claimed = ReportExport.objects.filter(pk=export_id, status=ReportExport.Status.QUEUED).update(
        status=ReportExport.Status.RUNNING, started_at=now
    )
    if not claimed:
        return
    export = ReportExport.objects.select_related("company").get(pk=export_id)
    file_name = f"{export.uuid}.csv"
    path = _exports_dir() / file_name
    try:
        query = report_csv_query(company=export.company, params=_query_dict(export.parameters))
        rows = query.count()
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as out:
            for chunk in report_csv_chunks(query):
                out.write(chunk)
    except Exception:
        logger.exception("background export %s failed", export.uuid)
        path.unlink(missing_ok=True)
        ReportExport.objects.filter(pk=export.pk).update(
            status=ReportExport.Status.FAILED, finished_at=timezone.now(), failure_reason="the export could not be made"
        )
        return
    finished = timezone.now()
    ReportExport.objects.filter(pk=export.pk).update(
        status=ReportExport.Status.SUCCEEDED,
        row_count=rows,
        file_name=file_name,
        finished_at=finished,
        expires_at=finished + timedelta(hours=settings.CSV_EXPORT_FILE_HOURS),
    )


def report_exports_purge(*, now: Any) -> int:
    """Delete the files of exports whose download time has passed; returns how many."""
    expired = list(ReportExport.objects.filter(expires_at__lte=now).exclude(file_name=""))
    for export in expired:
        (_exports_dir() / export.file_name).unlink(missing_ok=True)
    ReportExport.objects.filter(pk__in=[export.pk for export in expired]).update(file_name="")
    return len(expired)


def report_export_file(*, export: ReportExport) -> Iterator[bytes]:
    """The export's file in pieces, or 409 export_not_ready / 410 export_expired. Opened here, so a missing file
    is an error before the 200 goes out."""
    status = export_status(export)
    if status == "expired" or (status == ReportExport.Status.SUCCEEDED and not export.file_name):
        raise ApiError(
            "the export's download time has passed; make a new export", status=410, code=ErrorCode.EXPORT_EXPIRED
        )
    if status != ReportExport.Status.SUCCEEDED:
        raise ApiError(f"the export is {status}", status=409, code=ErrorCode.EXPORT_NOT_READY)
    handle = (_exports_dir() / export.file_name).open("rb")
    return _read_closing(handle)


def _read_closing(handle) -> Iterator[bytes]:
    with handle:
        while chunk := handle.read(FILE_READ_BYTES):
            yield chunk


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
    """Compares each company's TransactionCount sum with count(*) and, with `repair`, sets it to the count.

    The first comparison runs without locks, so a charge committing between the two reads can make a company look
    wrong; each suspect is compared again under a SHARE lock on the transaction table (charges wait for the
    moment it takes to count one company, and no uncommitted insert is missed) and repaired only if still wrong."""
    kept, counted = _kept(), _counted()
    suspects = sorted(c for c in kept.keys() | counted.keys() if kept.get(c, 0) != counted.get(c, 0))
    mismatches = []
    for company_id in suspects:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("LOCK TABLE transactions_transaction IN SHARE MODE")
            now_kept = _kept([company_id]).get(company_id, 0)
            now_counted = _counted([company_id]).get(company_id, 0)
            if now_kept == now_counted:
                continue
            mismatches.append(CountMismatch(company_id, now_kept, now_counted))
            if repair:
                TransactionCount.objects.filter(company_id=company_id).update(row_count=0)
                TransactionCount.objects.update_or_create(
                    company_id=company_id, slot=0, defaults={"row_count": now_counted}
                )
    return mismatches
