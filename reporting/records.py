"""Wire shape of a background export (N4)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from events.records import iso_utc as _iso
from reporting.models import ReportExport


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
        "createdAt": _iso(export.created_at),
        "startedAt": _iso(export.started_at),
        "finishedAt": _iso(export.finished_at),
        "expiresAt": _iso(export.expires_at),
        "downloadUrl": f"/reporting/exports/{export.uuid}/download" if status == "succeeded" else None,
        "failureReason": export.failure_reason or None,
    }
