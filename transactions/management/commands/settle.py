"""python manage.py settle [--at T]: settle due transactions, capture authorised cards, gather late returns."""

from __future__ import annotations

from django.core.management.base import CommandError

from transactions.ach.settlement import transactions_settle
from transactions.sandbox.services import sandbox_outcomes_apply
from vault.commands import (
    LIFECYCLE_SYSTEM_CHECKS,
    ScheduledCommand,
    add_at_argument,
    bulk_collector,
    emit,
    parse_at,
    progress_for,
)


class Command(ScheduledCommand):
    requires_system_checks = LIFECYCLE_SYSTEM_CHECKS
    help = (
        "Settle Processing transactions due by --at, capture authorised card charges and settle late returns. "
        "Sandbox companies' magic account numbers are returned or noticed first, as their bank would."
    )

    def add_arguments(self, parser):
        add_at_argument(parser)
        parser.add_argument(
            "--workers",
            type=int,
            default=None,
            help="companies settled at once, each on its own database connection (default: SETTLE_WORKERS, 2)",
        )

    def handle(self, *args, **options):
        at = parse_at(options["at"])
        sandbox = sandbox_outcomes_apply(at=at)
        if options["workers"] is not None and options["workers"] < 1:
            raise CommandError("--workers must be 1 or more")
        with bulk_collector():
            result = transactions_settle(at=at, progress=progress_for(self), workers=options["workers"])
        emit(self, {**result.as_json(), "sandbox": sandbox.as_json()})
