"""Wire shape of a background export (N4)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from reporting.models import ReportExport
from vault.records import iso_utc, text_or_none


def export_status(export: ReportExport, now: datetime | None = None) -> str:
    expired = export.expires_at is not None and export.expires_at <= (now or datetime.now(UTC))
    if export.status == ReportExport.Status.SUCCEEDED and expired:
        return "expired"
    return export.status


def export_record(export: ReportExport) -> dict[str, Any]:
    status = export_status(export)
    return {
        "uuid": str(export.uuid),
        "status": status,
        "query": urlencode([(name, value) for name, value in export.parameters], safe=":,"),
        "rowCount": export.row_count,
        "createdAt": iso_utc(export.created_at),
        "startedAt": iso_utc(export.started_at),
        "finishedAt": iso_utc(export.finished_at),
        "expiresAt": iso_utc(export.expires_at),
        "downloadUrl": f"/reporting/exports/{export.uuid}/download" if status == "succeeded" else None,
        "failureReason": text_or_none(export.failure_reason),
    }
