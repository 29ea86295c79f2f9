"""python manage.py purge_expired: delete idempotency records past their 24 h replay window (cron, hourly)."""

from __future__ import annotations

from django.utils import timezone

from idempotency.services import idempotency_records_purge
from vault.commands import ScheduledCommand, emit


class Command(ScheduledCommand):
    help = "Delete idempotency records older than 24 hours (their request fingerprints included)."

    def handle(self, *args, **options):
        emit(self, {"idempotencyRecords": idempotency_records_purge(now=timezone.now())})
