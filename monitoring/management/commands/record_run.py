"""python manage.py record_run NAME: records that a timer's job that is not one command (the import unit's script,
deploy/import-returns.sh, as `import_returns`) ended well, as a ScheduledCommand records itself, so
`vault_command_days_missed` counts its days too."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from monitoring.metrics import SCHEDULED_COMMANDS
from vault.commands import LIFECYCLE_SYSTEM_CHECKS, command_run_record, emit


class Command(BaseCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = "Record that a scheduled job ended well (for /metrics' vault_command_days_missed)."

    def add_arguments(self, parser):
        parser.add_argument("name", help=f"one of: {', '.join(sorted(SCHEDULED_COMMANDS))}")

    def handle(self, *args, **options):
        name = options["name"]
        if name not in SCHEDULED_COMMANDS:
            raise CommandError(f"{name!r} is no scheduled job: one of {', '.join(sorted(SCHEDULED_COMMANDS))}")
        command_run_record(name)
        emit(self, {"recorded": name})
