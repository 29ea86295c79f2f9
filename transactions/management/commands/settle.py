"""python manage.py settle [--at T]: settle due transactions, capture authorised cards, gather late returns."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from transactions.lifecycle.settlement import transactions_settle
from vault.commands import add_at_argument, emit, parse_at, progress_for


class Command(BaseCommand):
    help = "Settle Processing transactions due by --at, capture authorised card charges and settle late returns."

    def add_arguments(self, parser):
        add_at_argument(parser)

    def handle(self, *args, **options):
        result = transactions_settle(at=parse_at(options["at"]), progress=progress_for(self))
        emit(self, result.as_json())
