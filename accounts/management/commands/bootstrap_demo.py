"""Demo merchant for `make run`: company, admin user, API key (and, later, demo payments). Safe to rerun."""
from __future__ import annotations

import uuid

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.management._shared import emit
from accounts.models import Company
from accounts.services import api_key_reissue, company_get_or_create, user_create, user_set_password

# Fixed, so the demo entityUuid is the same on every machine and every run.
DEMO_COMPANY_UUID = uuid.UUID("00000000-0000-4000-8000-00000000d340")
DEMO_COMPANY_NAME = "Demo Merchant"
DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "vault-demo-password"  # noqa: S105 - a published demo credential, printed on purpose
DEMO_KEY_NAME = "demo"


def seed_demo_payments(company: Company) -> None:
    """TODO(lead): demo customers, payment methods and transactions for `company`, once the customer,
    payment-method and transaction services land. Must be safe to run twice (no duplicates)."""
    return None


class Command(BaseCommand):
    help = (
        "Create (or find) the demo company and its admin user, and issue a demo API key. Raw keys are never "
        "stored, so a rerun revokes the previous demo key and prints a new one; company and user are not "
        "duplicated. Prints the company uuid, the login (email and password) and the key."
    )

    def handle(self, *args, **options):
        with transaction.atomic():
            company, _ = company_get_or_create(uuid=DEMO_COMPANY_UUID, name=DEMO_COMPANY_NAME)
            user = user_create(email=DEMO_EMAIL, password=DEMO_PASSWORD, company=company, role_name="admin")
            # An existing demo user keeps nothing secret: reset to the published password so the printout works.
            user_set_password(user=user, password=DEMO_PASSWORD)
            issued = api_key_reissue(company=company, name=DEMO_KEY_NAME)
            seed_demo_payments(company)
        emit(
            self,
            {
                "companyUuid": str(company.uuid),
                "userId": user.pk,
                "email": user.email,
                "password": DEMO_PASSWORD,
                "apiKey": issued.raw_key,
                "authorization": issued.authorization,
                "prefix": issued.api_key.prefix,
            },
        )
