"""python manage.py release_holds --uuid U [--uuid U ...]: HELD transactions back to Pending."""

from __future__ import annotations

from uuid import UUID

from django.core.management.base import BaseCommand, CommandError

from transactions.ach.holds import holds_release
from vault.commands import add_at_argument, emit, parse_at


class Command(BaseCommand):
    help = "Release HELD transactions (by uuid) to Pending; other statuses are reported under notReleased."

    def add_arguments(self, parser):
        parser.add_argument("--uuid", action="append", required=True, help="transaction uuid (repeatable)")
        add_at_argument(parser)

    def handle(self, *args, **options):
        uuids = []
        for raw in options["uuid"]:
            try:
                uuids.append(UUID(raw))
            except ValueError:
                raise CommandError(f"--uuid {raw!r} is not a UUID") from None
        emit(self, holds_release(uuids=uuids, at=parse_at(options["at"])).as_json())
