"""python manage.py purge_exports: delete background export files past their download time (cron, hourly)."""

from __future__ import annotations

from django.utils import timezone

from reporting.exports import report_exports_purge
from vault.commands import ScheduledCommand, emit


class Command(ScheduledCommand):
    help = "Delete the CSV files of background exports whose download time has passed; their records stay."

    def handle(self, *args, **options):
        emit(self, {"exportFiles": report_exports_purge(now=timezone.now())})
