"""python manage.py audit_return_matches [--since DATE]: the returns and notices the matching rule of 2026-12-02
would not have applied as they were (transactions.ach.match_audit); changes nothing."""

from __future__ import annotations

from datetime import date

from django.core.management.base import BaseCommand, CommandError

from transactions.ach.match_audit import return_matches_audit
from vault.commands import emit


class Command(BaseCommand):
    help = (
        "Re-check every applied return and notice of change against the matching rule of 2026-12-02 and list the "
        "ones that would have gone elsewhere (transaction, company, what changed); nothing is changed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--since", help="only those received on or after this day (YYYY-MM-DD)")

    def handle(self, *args, **options):
        since = None
        if options["since"] is not None:
            try:
                since = date.fromisoformat(options["since"].strip())
            except ValueError:
                raise CommandError(f"--since must be a date, YYYY-MM-DD; got {options['since']!r}") from None
        emit(self, return_matches_audit(since=since))
