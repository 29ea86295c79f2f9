"""transactions 0023 adds Batch.debit_count: the batches built before it count the debits the return rates counted
from their entries until then, and no batch may count more debits than entries."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django.db import IntegrityError, transaction
from django.db.models import F

from tests.migration_steps import latest_migrations_after, migrate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.one_transaction]

BEFORE = [("transactions", "0022_ingestion_parts")]
AFTER = [("transactions", "0023_batch_debit_count")]
DAY = date(2026, 11, 2)


def test_batches_built_before_count_their_debits_of_the_rates():
    with latest_migrations_after():
        apps = migrate(BEFORE)
        company = apps.get_model("accounts", "Company").objects.create(name="Count Co")
        origination_file = apps.get_model("transactions", "OriginationFile").objects.create(
            window_at=datetime(2026, 11, 2, 15, tzinfo=UTC), file_id_modifier="A", path="x"
        )
        batches = apps.get_model("transactions", "Batch")
        entries = apps.get_model("transactions", "Transaction")
        prenote = apps.get_model("transactions", "AccountValidation").objects.create(
            company=company, kind="prenote", effective_date=DAY, account_hash="prenoted"
        )

        def batch(*kinds):
            made = batches.objects.create(
                company=company,
                origination_file=origination_file,
                standard_entry_class_code="WEB",
                effective_date=DAY,
                entry_count=len(kinds),
            )
            for method, kind, amount, seeded in kinds:
                entries.objects.create(
                    company=company, batch=made, method=method, type=kind, amount=amount, seeded=seeded,
                    account_validation=prenote if amount == 0 else None,
                    status="Processing", standard_entry_class_code="WEB", effective_date=DAY, name="Ada",
                    account_type="Checking", routing_number="021000021",
                )  # fmt: skip
            return made.pk

        mixed = batch(
            ("ACH", "Debit", 1500, None),
            ("ACH", "Debit", 7, None),  # a micro-entry debit moves money
            ("RCC", "Debit", 1234, None),
            ("ACH", "Debit", 0, None),  # a prenote
            ("ACH", "Credit", 700, None),
            ("ACH", "Debit", 900, True),  # a seeded sample row
        )
        credits = batch(("ACH", "Credit", 700, None))

        apps = migrate(AFTER)

        batches = apps.get_model("transactions", "Batch")
        assert dict(batches.objects.values_list("pk", "debit_count")) == {mixed: 3, credits: 0}
        with pytest.raises(IntegrityError), transaction.atomic():
            batches.objects.filter(pk=credits).update(debit_count=F("entry_count") + 1)
