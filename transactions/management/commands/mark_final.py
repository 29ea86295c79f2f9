"""python manage.py mark_final [--at T]: finality of debits (CONTRACT 15)."""

from __future__ import annotations

from transactions.ach.finality import finality_mark
from vault.commands import ScheduledCommand, add_at_argument, emit, parse_at


class Command(ScheduledCommand):
    help = (
        "Stamp ACH/RCC debits in a file with their return windows and fundsAvailableAt; announce "
        "transaction.funds_available and transaction.final once each (daily, after settle). Safe to rerun."
    )

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        emit(self, finality_mark(at=parse_at(options["at"])).as_json())
