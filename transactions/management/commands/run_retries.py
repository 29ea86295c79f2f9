"""python manage.py run_retries [--at T]: the scheduled re-presentments of R01/R09 returns (CONTRACT 15)."""

from __future__ import annotations

from transactions.charges.retry_attempts import retries_run
from vault.commands import ScheduledCommand, add_at_argument, emit, parse_at


class Command(ScheduledCommand):
    help = (
        "Make the automatic re-presentments due today (daily, before originate) as RETRY PYMT debits; cancel those "
        "that may no longer be made. Safe to rerun and to run twice at once."
    )

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        emit(self, retries_run(at=parse_at(options["at"])).as_json())
