"""python manage.py import_statement FILE: read a bank statement (BAI2 or camt.053) of our settlement account once
(CONTRACT 19). Prints {"statementUuid", "lines", "duplicate"}."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from reconciliation.services import StatementRefused, statement_import
from vault.commands import emit


class Command(BaseCommand):
    help = "Read a bank statement (BAI2 or camt.053) of BANK_SETTLEMENT_ACCOUNT; the same file twice reads nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the statement file")

    def handle(self, *args, **options):
        path = Path(options["file"])
        try:
            if path.stat().st_size > settings.IMPORT_RETURNS_MAX_BYTES:
                raise CommandError(f"{path.name}: larger than IMPORT_RETURNS_MAX_BYTES")
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from None
        try:
            result = statement_import(name=path.name, data=data, at=timezone.now())
        except StatementRefused as exc:
            raise CommandError(f"{path.name}: {exc}") from None
        emit(self, result.as_json())
