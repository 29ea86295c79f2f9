"""`seed_transactions --company UUID --count N`: fill a company with realistic reporting data (idempotent)."""

from __future__ import annotations

import json
import time
import uuid

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from accounts.models import Company
from sampledata.seeding import seed_transactions
from vault.commands import add_allow_production_argument, require_debug_or_allowed


class Command(BaseCommand):
    help = "Add realistic transactions (with every reporting group) until the company has at least --count."

    def add_arguments(self, parser):
        parser.add_argument("--company", required=True, help="Company UUID")
        parser.add_argument("--count", required=True, type=int)
        parser.add_argument("--seed", type=int, default=1, help="Random seed")
        parser.add_argument("--database", default="default")
        add_allow_production_argument(parser)

    def handle(self, *args, **options):
        require_debug_or_allowed(options, makes="made-up transactions (marked seeded: originate and settle skip them)")
        try:
            company_uuid = uuid.UUID(options["company"])
        except ValueError:
            raise CommandError("--company must be a UUID") from None
        if options["count"] < 0:
            raise CommandError("--count must be at least 0")
        company = Company.objects.using(options["database"]).filter(uuid=company_uuid).first()
        if company is None:
            raise CommandError("company not found")
        started = time.monotonic()
        with tqdm(total=options["count"], unit="txn", disable=options["verbosity"] == 0, file=self.stderr) as bar:
            result = seed_transactions(
                company=company,
                count=options["count"],
                seed=options["seed"],
                alias=options["database"],
                progress=bar.update,
            )
        self.stdout.write(
            json.dumps(
                {
                    "companyUuid": str(company.uuid),
                    "created": result.created,
                    "transactions": result.total,
                    "returns": result.returns,
                    "lateReturns": result.late_returns,
                    "notices": result.notices,
                    "holds": result.holds,
                    "exceptions": result.exceptions,
                    "vacuumed": result.vacuumed,
                    "seconds": round(time.monotonic() - started, 1),
                }
            )
        )
