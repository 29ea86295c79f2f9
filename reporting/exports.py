"""Background CSV exports (N4, as Stripe's report runs): the worker's build of the file, its download and its
purge (POST /reporting/exports queues one: reporting.services.report_export_create).
Nothing here writes a transaction's status."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from reporting.models import ReportExport
from reporting.query import ReportQuery
from reporting.records import export_status
from reporting.stream import report_csv_chunks, report_csv_count
from vault.error_codes import ErrorCode
from vault.errors import ApiError

logger = logging.getLogger("reporting.exports")

FILE_READ_BYTES = 64 * 1024


def _exports_dir():
    directory = settings.VAR_DIR / "exports"
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory


def report_export_build(*, export_id: int) -> None:
    """Worker side: write the export's file (0600 under var/exports/), then mark it succeeded with its row count
    and download deadline, or failed. Claimed by a compare-and-set, so a task run twice builds it once."""
    now = timezone.now()
    report_exports_purge(now=now)
    # A worker that died while building left it RUNNING; its task comes back after TASK_LEASE_SECONDS
    # (events.tasks.tasks_reclaim), and then so does the export.
    abandoned = Q(
        status=ReportExport.Status.RUNNING, started_at__lt=now - timedelta(seconds=settings.TASK_LEASE_SECONDS)
    )
    claimed = (
        ReportExport.objects.filter(pk=export_id)
        .filter(Q(status=ReportExport.Status.QUEUED) | abandoned)
        .update(status=ReportExport.Status.RUNNING, started_at=now)
    )
    if not claimed:
        return
    export = ReportExport.objects.select_related("company").get(pk=export_id)
    file_name = f"{export.uuid}.csv"
    path = _exports_dir() / file_name
    try:
        query = ReportQuery.of_export(company=export.company, parameters=export.parameters)
        rows = report_csv_count(query)
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
