"""python manage.py originate [--at T]: batch the due ACH/RCC transactions and write the window's NACHA file."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import IntegrityError

from transactions.lifecycle.cli import add_at_argument, emit, parse_at, progress_for
from transactions.lifecycle.nacha import NachaFieldError
from transactions.lifecycle.origination import transactions_originate


class Command(BaseCommand):
    help = "Batch Pending ACH and RCC transactions due by the processing day of --at and write the NACHA file."

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        at = parse_at(options["at"])
        try:
            result = transactions_originate(at=at, progress=progress_for(self))
        except IntegrityError as exc:
            raise CommandError("another originate run took the same trace numbers or file id; run again") from exc
        except NachaFieldError as exc:  # nothing was written; the batches wait for the data to be corrected
            raise CommandError(f"a NACHA file cannot be written: {exc}") from exc
        emit(self, result.as_json())
