"""python manage.py transmit_files [--at T]: send the written NACHA files to the bank over SFTP (CONTRACT 16)."""

from __future__ import annotations

from django.core.management.base import CommandError

from bank.connection import BankNotConfigured
from bank.transmit import files_transmit
from vault.commands import LIFECYCLE_SYSTEM_CHECKS, ScheduledCommand, add_at_argument, emit, parse_at
from vault.threads import LockLost


class Command(ScheduledCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = "Upload every written, untransmitted NACHA file to the bank (.part, rename, read back); never twice."

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        at = parse_at(options["at"])
        try:
            result = files_transmit(at=at)
        except (BankNotConfigured, LockLost) as exc:
            raise CommandError(str(exc)) from None
        emit(self, result.as_json())
        if result.failed:
            # The JSON above names each file and its error; a non-zero exit makes the timer's unit fail.
            raise CommandError(f"{len(result.failed)} file(s) not transmitted; the next run tries them again")
