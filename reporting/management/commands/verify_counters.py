"""`verify_counters [--dry-run]`: the trigger-kept counters against what they count, repaired: each company's
transaction counter (totalRows) against count(*), and on PostgreSQL its daily volume (the daily volume limit) of the
last two Eastern days against the sum of its entries."""

from __future__ import annotations

from django.core.management.base import BaseCommand
from django.utils import timezone

from accounts.models import Company
from reporting.services import verify_transaction_counts
from transactions.risk.limits import daily_volumes_verify
from vault.commands import emit


class Command(BaseCommand):
    help = (
        "Compares every company's trigger-kept transaction counter with count(*), and on PostgreSQL its daily volume "
        "of the last two Eastern days with the sum of its entries, and repairs the ones that differ (not with "
        '--dry-run). Prints {"mismatched": [{"companyUuid", "kept", "counted"}], "dailyVolumeMismatched": '
        '[{"companyUuid", "day", "kept", "summed"}], "repaired"}.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="report mismatches without repairing them")

    def handle(self, *args, dry_run: bool, **options):
        mismatches = verify_transaction_counts(repair=not dry_run)
        volumes = daily_volumes_verify(repair=not dry_run, now=timezone.now())
        companies = {m.company_id for m in mismatches} | {v.company_id for v in volumes}
        uuids = dict(Company.objects.filter(pk__in=companies).values_list("pk", "uuid"))
        emit(
            self,
            {
                "mismatched": [
                    {"companyUuid": str(uuids.get(m.company_id)), "kept": m.kept, "counted": m.counted}
                    for m in mismatches
                ],
                "dailyVolumeMismatched": [
                    {
                        "companyUuid": str(uuids.get(v.company_id)),
                        "day": v.day.isoformat(),
                        "kept": v.kept,
                        "summed": v.summed,
                    }
                    for v in volumes
                ],  # fmt: skip
                "repaired": bool(mismatches or volumes) and not dry_run,
            },
        )
