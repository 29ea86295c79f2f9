"""payments 0004 adds PaymentMethod.account_number_hash: methods saved before it get theirs from their decrypted
number, so the debit rules (transactions.risk.account_rules.saved_account_rows) find their returned debits."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from tests.migration_steps import latest_migrations_after, migrate
from vault import crypto

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.one_transaction]

BEFORE = [("payments", "0003_payment_method_corrected_name")]
AFTER = [("payments", "0004_payment_method_account_number_hash")]


def test_methods_saved_before_get_their_account_number_hash_and_none_may_lack_it():
    with latest_migrations_after():
        apps = migrate(BEFORE)
        company = apps.get_model("accounts", "Company").objects.create(name="Hash Co")
        customer = apps.get_model("customers", "Customer").objects.create(
            company=company, first_name="Ada", last_name="Lovelace"
        )
        methods = apps.get_model("payments", "PaymentMethod")
        saved = {
            number: methods.objects.create(
                company=company,
                customer=customer,
                account_type="Checking",
                account_number=number,
                account_hash=crypto.account_pair_hash("021000021", number),
                last_four=number[-4:],
                routing_number="021000021",
            ).pk
            for number in ("123456789", "987654321")
        }

        apps = migrate(AFTER)

        methods = apps.get_model("payments", "PaymentMethod")
        for number, pk in saved.items():
            assert methods.objects.get(pk=pk).account_number_hash == crypto.account_number_hash(number)
        with pytest.raises(IntegrityError), transaction.atomic():
            methods.objects.filter(pk=saved["123456789"]).update(account_number_hash="")
