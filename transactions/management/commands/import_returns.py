"""python manage.py import_returns FILE: apply a NACHA (or CSV) return / notice-of-change file."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from transactions.lifecycle.returns import ReturnFileError, returns_import
from vault.commands import add_at_argument, emit, parse_at, progress_for


class Command(BaseCommand):
    help = "Import an RDFI return / NOC file (NACHA or CSV); re-importing the same file changes nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", help="path of the NACHA or CSV file")
        add_at_argument(parser)

    def handle(self, *args, **options):
        path = Path(options["file"])
        limit = settings.IMPORT_RETURNS_MAX_BYTES
        try:
            with path.open("rb") as handle:
                content = handle.read(limit + 1)  # never more than the limit (and one byte to see it is over)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from None
        if len(content) > limit:
            raise CommandError(f"{path.name}: the file is larger than {limit} bytes (IMPORT_RETURNS_MAX_BYTES)")
        try:
            summary = returns_import(
                content=content, filename=path.name, at=parse_at(options["at"]), progress=progress_for(self)
            )
        except ReturnFileError as exc:
            raise CommandError(f"{path.name}: {exc}") from None
        emit(self, summary)
