"""`purge_events`: delete events older than the retention (30 days), with their deliveries and attempts."""

from __future__ import annotations

import json
from datetime import timedelta

from django.conf import settings
from django.core.management.base import CommandError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from events.services import events_purge
from events.tasks import task_results_purge
from vault.commands import ScheduledCommand


class Command(ScheduledCommand):
    help = (
        f"Delete events older than {settings.EVENT_RETENTION_DAYS} days (with their deliveries and attempts) and "
        "finished background-task rows older than a day."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--at", help="ISO 8601 UTC time to count the retention from (default now).")

    def handle(self, *, at: str | None, **options) -> None:
        now = parse_datetime(at) if at else timezone.now()
        if now is None or now.tzinfo is None:
            raise CommandError("--at must be an ISO 8601 time with a zone, e.g. 2026-11-23T00:00:00Z")
        deleted = events_purge(before=now - timedelta(days=settings.EVENT_RETENTION_DAYS))
        tasks = task_results_purge(before=now - timedelta(days=1))
        self.stdout.write(json.dumps({"events": deleted, "taskResults": tasks}))
