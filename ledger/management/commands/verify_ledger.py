"""`verify_ledger [--at T]`: the books checked (CONTRACT 17); exit 1 on any imbalance or mismatch."""

from __future__ import annotations

from django.core.management.base import CommandError

from ledger.services import ledger_verify
from vault.commands import ScheduledCommand, add_at_argument, emit, parse_at


class Command(ScheduledCommand):
    help = (
        "Re-sums every journal entry (its postings sum to zero), every company's balances against its postings "
        "(checkpoints included) and every transaction's status against its entries. Prints "
        '{"entries", "postings", "imbalances", "mismatches": [...]} and exits 1 on any.'
    )

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        check = ledger_verify(at=parse_at(options["at"]))
        emit(self, check.as_json())
        if check.failed:
            raise CommandError(
                f"the ledger is wrong: {check.imbalances} unbalanced entries, {len(check.mismatches)} mismatches"
            )
