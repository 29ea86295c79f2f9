"""payments 0005 and transactions 0031 add unpadded_account_hash: the rows the debit rules read that were written
before it (saved methods, account blocks, debits returned R01/R09 within 180 days, entries not yet in a file) get it
from their decrypted number when it has leading zeros; older rows keep NULL and are matched by their exact hash."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.migration_steps import latest_migrations_after, migrate
from vault import crypto

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.one_transaction]

BEFORE = [("payments", "0004_payment_method_account_number_hash"), ("transactions", "0030_trace_sequence")]
AFTER = [("payments", "0005_payment_method_unpadded_account_hash"), ("transactions", "0031_unpadded_account_hash")]
UNPADDED = crypto.account_number_hash("88880001")


def test_rows_the_debit_rules_read_get_their_unpadded_hash():
    with latest_migrations_after():
        apps = migrate(BEFORE)
        company = apps.get_model("accounts", "Company").objects.create(name="Zeros Co")
        customer = apps.get_model("customers", "Customer").objects.create(
            company=company, first_name="Ada", last_name="Lovelace"
        )
        methods = apps.get_model("payments", "PaymentMethod")
        entries = apps.get_model("transactions", "Transaction")

        def method(number: str) -> int:
            return methods.objects.create(
                company=company, customer=customer, account_type="Checking", account_number=number,
                account_hash=crypto.account_pair_hash("021000021", number),
                account_number_hash=crypto.account_number_hash(number), last_four=number[-4:],
                routing_number="021000021",
            ).pk  # fmt: skip

        def entry(number: str, *, days_ago: int = 3, status: str = "Returned", code: str | None = "R01") -> int:
            row = entries.objects.create(
                company=company, method="ACH", type="Debit", amount=500, status=status, name="Ada",
                effective_date=timezone.now().date() - timedelta(days=days_ago), account_type="Checking",
                routing_number="021000021", account_number=number,
                account_number_hash=crypto.account_number_hash(number), account_last_four=number[-4:],
            )  # fmt: skip
            entries.objects.filter(pk=row.pk).update(return_code=code)
            return row.pk

        padded_method, plain_method = method("088880001"), method("77770001")
        recent, old = entry("088880001"), entry("088880001", days_ago=400)
        waiting = entry("0088880001", status="Pending", code=None)
        blocked = entry("00088880001", code="R02")
        apps.get_model("transactions", "AccountBlock").objects.create(
            company=company, account_hash="pair", account_number_hash=crypto.account_number_hash("00088880001"),
            routing_number="021000021", account_last_four="0001", return_code="R02", transaction_id=blocked,
            blocked_at=timezone.now(),
        )  # fmt: skip

        apps = migrate(AFTER)

        methods = apps.get_model("payments", "PaymentMethod").objects
        assert methods.get(pk=padded_method).unpadded_account_hash == UNPADDED
        assert methods.get(pk=plain_method).unpadded_account_hash is None
        entries = apps.get_model("transactions", "Transaction").objects
        assert entries.get(pk=recent).unpadded_account_hash == UNPADDED
        assert entries.get(pk=waiting).unpadded_account_hash == UNPADDED
        assert entries.get(pk=old).unpadded_account_hash is None  # past re-initiation's 180 days: never read
        block = apps.get_model("transactions", "AccountBlock").objects.get(transaction_id=blocked)
        assert block.unpadded_account_hash == UNPADDED
