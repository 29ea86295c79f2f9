"""Make the debits of every active schedule due within 2 banking days, and announce those 10 days ahead
(CONTRACT 14): daily, before `originate`. Prints {"debits", "notices", "stopped", "completed", "refused"}."""

from __future__ import annotations

from schedules.services import schedules_run
from vault.commands import ScheduledCommand, add_at_argument, emit, parse_at


class Command(ScheduledCommand):
    help = (
        "Make each active schedule's debits due within 2 banking days (once per date, however often it runs) and "
        "announce schedule.payment_upcoming 10 days before each; stop schedules whose mandate was revoked or whose "
        "method was blocked. Run daily, before originate."
    )

    def add_arguments(self, parser) -> None:
        add_at_argument(parser)

    def handle(self, *args, at: str | None, **options):
        emit(self, schedules_run(at=parse_at(at)).as_json())
