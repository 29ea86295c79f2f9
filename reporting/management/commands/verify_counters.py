"""`verify_counters [--dry-run]`: each company's transaction counter (totalRows) against count(*), repaired."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from accounts.models import Company
from reporting.services import verify_transaction_counts
from vault.commands import emit


class Command(BaseCommand):
    help = (
        "Compares every company's trigger-kept transaction counter with count(*) and repairs the ones that differ "
        '(not with --dry-run). Prints {"mismatched": [{"companyUuid", "kept", "counted"}], "repaired"}.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="report mismatches without repairing them")

    def handle(self, *args, dry_run: bool, **options):
        mismatches = verify_transaction_counts(repair=not dry_run)
        uuids = dict(Company.objects.filter(pk__in=[m.company_id for m in mismatches]).values_list("pk", "uuid"))
        emit(
            self,
            {
                "mismatched": [
                    {"companyUuid": str(uuids.get(m.company_id)), "kept": m.kept, "counted": m.counted}
                    for m in mismatches
                ],
                "repaired": bool(mismatches) and not dry_run,
            },
        )
