"""transactions 0036 posts the opening entries of every transaction that holds money when the ledger arrives."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.management import call_command

from tests.migration_steps import latest_migrations_after, migrate

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.one_transaction,
    pytest.mark.usefixtures("ordinary_banking_day"),
]

BEFORE = [("transactions", "0035_return_reauthorized_by"), ("ledger", "0002_keys_and_promises")]
AFTER = [("transactions", "0036_ledger_opening_entries")]


def test_each_transaction_holding_money_gets_its_opening_entry():
    with latest_migrations_after():
        apps = migrate(BEFORE)
        company = apps.get_model("accounts", "Company").objects.create(name="Opening Co")
        entries = apps.get_model("transactions", "Transaction")

        def entry(amount: int, status: str, type: str = "Debit", **more) -> None:
            entries.objects.create(
                company=company, method=more.pop("method", "ACH"), type=type, amount=amount, status=status,
                name="Ada", effective_date=date(2026, 11, 3), account_type="Checking", routing_number="021000021",
                **more,
            )  # fmt: skip

        entry(100, "Pending")  # a debit not sent has moved no money
        entry(200, "Processing")
        entry(400, "Settled")
        entry(800, "Settled", finality="available")
        entry(1_600, "Returned")
        entry(30, "Pending", type="Credit")
        entry(50, "Settled", type="Credit")
        entry(7, "Settled", seeded=True)

        apps = migrate(AFTER)

        postings = apps.get_model("ledger", "Posting").objects.filter(company_id=company.pk)
        balances: dict[str, int] = {}
        for account, amount in postings.values_list("account", "amount"):
            balances[account] = balances.get(account, 0) + amount
        assert balances == {
            "incoming": 200,
            "clearing": -200,
            "pending": 400,
            "available": 800 - 30 - 50,
            "bank": -400 - 800 + 50,
            "outgoing": 30,
        }
        assert apps.get_model("ledger", "JournalEntry").objects.filter(company_id=company.pk).count() == 5
        call_command("verify_ledger", stdout=open("/dev/null", "w"))
