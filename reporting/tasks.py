"""Background work of the reporting app, through Django's tasks interface (run by `run_worker`)."""

from __future__ import annotations

from django_tasks import task

from reporting.exports import report_export_build


@task()
def report_export_build_task(export_id: int) -> None:
    """Make one background CSV export (POST /reporting/exports)."""
    report_export_build(export_id=export_id)
