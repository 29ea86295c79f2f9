"""python manage.py fetch_bank_files [--at T]: fetch and apply the bank's acknowledgements, returns and notices of
change (CONTRACT 16); mark transmitted files the bank has not answered in time as unacknowledged."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DatabaseError

from bank.connection import BankNotConfigured, describe
from bank.fetch import bank_files_fetch, fetch_problems
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
                f"the database went away during the fetch ({describe(exc)}); what was applied stays applied, the "
                "next run applies the rest"
            ) from None
        emit(self, result.as_json())
        problems = fetch_problems(result)
        if problems:
            raise CommandError("; ".join(problems))
