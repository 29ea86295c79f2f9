"""python manage.py purge_outbound [--older-than DAYS]: delete NACHA files past retention (cron, daily)."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.utils import timezone

from transactions.retention import OUTBOUND_RETENTION_DAYS, outbound_files_purge
from vault.commands import ScheduledCommand, emit


class Command(ScheduledCommand):
    help = "Delete NACHA files under OUTBOUND_DIR older than --older-than days; their database records stay."

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=int,
            default=OUTBOUND_RETENTION_DAYS,
            metavar="DAYS",
            help=f"retention in days (default {OUTBOUND_RETENTION_DAYS})",
        )

    def handle(self, *args, **options):
        days = options["older_than"]
        if days < 0:
            raise CommandError("--older-than must be 0 or more days")
        emit(self, outbound_files_purge(now=timezone.now(), older_than_days=days).as_json())
