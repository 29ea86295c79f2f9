"""python manage.py fetch_bank_files [--at T]: fetch and apply the bank's acknowledgements, returns and notices of
change (CONTRACT 16); mark transmitted files the bank has not answered in time as unacknowledged."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DatabaseError

from bank.connection import BankNotConfigured
from bank.fetch import bank_files_fetch
from vault.commands import LIFECYCLE_SYSTEM_CHECKS, ScheduledCommand, add_at_argument, bulk_collector, emit, parse_at


class Command(ScheduledCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = "Fetch the bank's files (acknowledgements, returns, NOCs) and apply each once."

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        at = parse_at(options["at"])
        try:
            with bulk_collector():
                result = bank_files_fetch(at=at)
        except BankNotConfigured as exc:
            raise CommandError(str(exc)) from None
        except DatabaseError as exc:  # one line, never a traceback
            raise CommandError(
                f"the database refused a file's import ({type(exc).__name__}); the next run applies what this one "
                "did not"
            ) from None
        emit(self, result.as_json())
        if result.connection_error:
            raise CommandError(result.connection_error)
        if result.unacknowledged:
            names = ", ".join(result.unacknowledged)
            raise CommandError(f"{len(result.unacknowledged)} file(s) now unacknowledged by the bank: {names}")
        if result.rejected_files:
            names = ", ".join(result.rejected_files)
            raise CommandError(
                f"{len(result.rejected_files)} file(s) rejected by the bank: {names}; their entries do not settle "
                "(docs/operations.md section 9, 'A rejected file')"
            )
        if result.refused:
            raise CommandError(f"{result.refused} file(s) from the bank were not applied; see exceptions")
