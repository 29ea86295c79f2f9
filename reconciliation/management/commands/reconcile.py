"""python manage.py reconcile [--at T]: make the expected payments, match the statements' lines to them, open the
exceptions now due (CONTRACT 19). Daily, after fetch_bank_files. Exits 1 when a new exception appears."""

from __future__ import annotations

from django.core.management.base import CommandError

from reconciliation.services import reconcile_run
from vault.commands import LIFECYCLE_SYSTEM_CHECKS, ScheduledCommand, add_at_argument, emit, parse_at


class Command(ScheduledCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = "Match the bank statements' lines to the payments the service expects; exit 1 on a new exception."

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        result = reconcile_run(at=parse_at(options["at"]))
        emit(self, result.as_json())
        if result.exceptions:
            raise CommandError(
                f"{len(result.exceptions)} new reconciliation exception(s): see the admin's Reconciliation "
                "exceptions (docs/operations.md, 'The daily reconciliation')"
            )
