"""`checkpoint_ledger [--at T]`: every company's balances written down, so a balance read sums only what follows."""

from __future__ import annotations

from ledger.services import ledger_checkpoint
from vault.commands import ScheduledCommand, add_at_argument, emit, parse_at


class Command(ScheduledCommand):
    help = (
        "Writes a checkpoint of every company's account balances over the postings made at or before --at (default "
        'now), set-based. Daily, after the lifecycle commands. Prints {"checkpoints", "companies", "throughId"}.'
    )

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        emit(self, ledger_checkpoint(at=parse_at(options["at"])))
