"""Put a company in or out of staged rollout: `{"companyUuid", "staged"}`."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from accounts.models import Company
from accounts.services import company_set_rollout
from vault.commands import by_uuid, emit


class Command(BaseCommand):
    help = (
        "Staged role-based rollout on (--staged) or off (--not-staged) for --company: while staged, its API keys "
        'need the rollout flag for CreateCustomer and ManagePaymentMethods. Prints {"companyUuid", "staged"}.'
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--company", required=True, metavar="UUID")
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--staged", dest="staged", action="store_true")
        group.add_argument("--not-staged", dest="staged", action="store_false")

    def handle(self, *args, company: str, staged: bool, **options):
        updated = company_set_rollout(company=by_uuid(Company.objects, company, flag="--company"), staged=staged)
        emit(self, {"companyUuid": str(updated.uuid), "staged": updated.staged_rollout})
