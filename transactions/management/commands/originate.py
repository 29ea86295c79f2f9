"""python manage.py originate [--at T]: batch the due ACH/RCC transactions and write the window's NACHA file."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import IntegrityError

from transactions.ach.origination import transactions_originate
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
    help = "Batch Pending ACH and RCC transactions due by the processing day of --at and write the NACHA file."

    def add_arguments(self, parser):
        add_at_argument(parser)
        add_workers_argument(
            parser,
            help="companies batched at once, each on its own database connection (default: ORIGINATE_WORKERS, 2)",
        )

    def handle(self, *args, **options):
        at = parse_at(options["at"])
        workers = workers_of(options)
        try:
            with bulk_collector():
                result = transactions_originate(at=at, progress=progress_for(self), workers=workers)
        except IntegrityError as exc:
            raise CommandError("another originate run took the same trace numbers or file id; run again") from exc
        emit(self, result.as_json())
        if result.unwritten:
            # The JSON above lists them; a non-zero exit makes the scheduler alert someone.
            errors = "; ".join(item["error"] for item in result.unwritten)
            raise CommandError(
                f"{len(result.unwritten)} NACHA file(s) could not be written ({errors}); their batches will not "
                "settle until a later originate writes them"
            )
