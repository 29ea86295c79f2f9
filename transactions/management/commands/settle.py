"""python manage.py settle [--at T]: settle due transactions, capture authorised cards, gather late returns."""

from __future__ import annotations

from transactions.ach.settlement import transactions_settle
from transactions.sandbox.services import sandbox_outcomes_apply
from vault.commands import (
    LIFECYCLE_SYSTEM_CHECKS,
    ScheduledCommand,
    add_at_argument,
    add_workers_argument,
    bulk_collector,
    emit,
    parse_at,
    progress_for,
    workers_of,
)


class Command(ScheduledCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = (
        "Settle Processing transactions due by --at, capture authorised card charges and settle late returns. "
        "Sandbox companies' magic account numbers are returned or noticed first, as their bank would."
    )

    def add_arguments(self, parser):
        add_at_argument(parser)
        add_workers_argument(
            parser, help="companies settled at once, each on its own database connection (default: SETTLE_WORKERS, 2)"
        )

    def handle(self, *args, **options):
        at = parse_at(options["at"])
        workers = workers_of(options)
        sandbox = sandbox_outcomes_apply(at=at)
        with bulk_collector():
            result = transactions_settle(at=at, progress=progress_for(self), workers=workers)
        emit(self, {**result.as_json(), "sandbox": sandbox.as_json()})
