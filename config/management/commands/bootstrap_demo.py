"""Demo merchant for `make run`: company, admin user, API key, customers, saved methods, charges and reporting
rows. Safe to rerun. It lives in the project package because it wires every app, as config/urls.py does."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from accounts.models import ApiKey, Company
from accounts.services import (
    IssuedApiKey,
    api_key_reissue,
    company_get_or_create,
    hash_api_key,
    user_create,
    user_set_password,
)
from backoffice.groups import STAFF_GROUPS
from backoffice.services import staff_access_grant
from customers.models import Customer
from customers.services import customer_create
from payments.services import payment_method_create
from sampledata.seeding import seed_transactions
from transactions.charges.services import ChargeRequest, transaction_charge
from transactions.state import Actor
from vault.commands import add_allow_production_argument, emit, require_debug_or_allowed

# Fixed, so the demo entityUuid is the same on every machine and every run.
DEMO_COMPANY_UUID = uuid.UUID("00000000-0000-4000-8000-00000000d340")
DEMO_COMPANY_NAME = "Demo Merchant"
DEMO_EMAIL = "demo@example.com"
DEMO_PASSWORD = "vault-demo-password"  # noqa: S105 - a published demo credential, printed on purpose
DEMO_KEY_NAME = "demo"
DEMO_KEY_FILE = "demo-api-key"  # under VAR_DIR, 0600: the demo key survives `make run` restarts (DEBUG only)


DEMO_CUSTOMERS = (
    # (first, last, company, email, (account type, account number, routing number))
    ("Ada", "Lovelace", "", "ada@example.com", ("Checking", "000123456789", "011000015")),
    ("Grace", "Hopper", "", "grace@example.com", ("Savings", "987654321", "021000021")),
    ("", "", "Acme Supplies LLC", "ap@acme.example.com", ("Checking", "5550001234", "026009593")),
)
DEMO_CHARGES = (
    # (customer index, method, type, amount in cents)
    (0, "ACH", "Debit", 12_500),
    (0, "RTP", "Credit", 4_200),
    (1, "ACH", "Debit", 89_900),
    (1, "RCC", "Debit", 15_000),
    (2, "ACH", "Credit", 250_000),
)
DEMO_REPORTING_ROWS = 500


def seed_demo_payments(company: Company) -> None:
    """Demo customers with saved bank accounts, a few charges through the real services, and a few hundred
    generated rows with every lifecycle group filled, so the reporting endpoint has something to show.
    A company that already has customers is left alone, so a rerun adds nothing."""
    if Customer.objects.filter(company=company).exists():
        return
    methods = []
    for first, last, company_name, email, (account_type, account_number, routing_number) in DEMO_CUSTOMERS:
        customer = customer_create(
            company=company, first_name=first, last_name=last, company_name=company_name, email=email
        )
        methods.append(
            payment_method_create(
                company=company,
                customer=customer,
                account_type=account_type,
                account_number=account_number,
                routing_number=routing_number,
            )
        )
    for index, method, kind, amount in DEMO_CHARGES:
        saved = methods[index]
        transaction_charge(
            ChargeRequest(
                company=company,
                method=method,
                type=kind,
                amount=amount,
                actor=Actor.command("bootstrap_demo"),
                now=timezone.now(),
                customer_uuid=saved.customer.uuid,
                payment_method_uuid=saved.uuid,
                description="demo charge",
            )
        )
    seed_transactions(company=company, count=DEMO_REPORTING_ROWS + len(DEMO_CHARGES), vacuum=False)


def demo_api_key(company: Company, *, rotate: bool) -> IssuedApiKey:
    """With DEBUG, the key kept in VAR_DIR/demo-api-key while it is still the company's live demo key, so a key
    saved in a client's .env keeps working; otherwise (or with --rotate-key) a new one, kept there in turn.
    Without DEBUG no raw key is written anywhere: every run issues a new one."""
    path = Path(settings.VAR_DIR) / DEMO_KEY_FILE
    if settings.DEBUG and not rotate and path.exists():
        raw_key = path.read_text().strip()
        live = ApiKey.objects.filter(
            company=company, name=DEMO_KEY_NAME, key_hash=hash_api_key(raw_key), revoked_at__isnull=True
        ).first()
        if live is not None:
            return IssuedApiKey(api_key=live, raw_key=raw_key)
    issued = api_key_reissue(company=company, name=DEMO_KEY_NAME)
    if settings.DEBUG:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as kept:
            kept.write(issued.raw_key)
    return issued


class Command(BaseCommand):
    help = (
        "Create (or find) the demo company and its admin user, and the demo API key. With DEBUG the raw demo key "
        "is kept in VAR_DIR/demo-api-key (0600) and reused by every rerun (--rotate-key issues a new one); without "
        "DEBUG a rerun revokes the previous demo key and prints a new one. Company and user are not duplicated. "
        "Prints the company uuid, the login (email and password) and the key."
    )

    def add_arguments(self, parser):
        add_allow_production_argument(parser)
        parser.add_argument("--rotate-key", action="store_true", help="revoke the demo key and issue a new one")

    def handle(self, *args, **options):
        require_debug_or_allowed(options, makes="a demo login with a published password and demo charges")
        with transaction.atomic():
            # A sandbox company (CONTRACT 13): its entries never reach a bank, and /sandbox shows every outcome.
            company, _ = company_get_or_create(uuid=DEMO_COMPANY_UUID, name=DEMO_COMPANY_NAME, sandbox=True)
            user = user_create(email=DEMO_EMAIL, password=DEMO_PASSWORD, company=company, role_name="admin")
            # An existing demo user keeps nothing secret: back to the published password so the printout works.
            # Only when it differs: a new hash would end every admin session the demo login has open.
            if not user.check_password(DEMO_PASSWORD):
                user_set_password(user=user, password=DEMO_PASSWORD)
            if settings.DEBUG:
                # A published password must never open a production back office: admin access in DEBUG only.
                staff_access_grant(user=user, groups=list(STAFF_GROUPS))
            issued = demo_api_key(company, rotate=options["rotate_key"])
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
