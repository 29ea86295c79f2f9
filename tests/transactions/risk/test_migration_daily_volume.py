"""transactions 0024 keeps each company's daily volume in rows the transaction table's triggers write: the entries
created before it are counted into them by the migration, by Eastern day, as the limit summed them."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from tests.migration_steps import latest_migrations_after, migrate

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True), pytest.mark.one_transaction]

BEFORE = [("transactions", "0023_batch_debit_count")]
AFTER = [("transactions", "0024_daily_volume")]


def test_entries_created_before_are_counted_by_eastern_day():
    with latest_migrations_after():
        apps = migrate(BEFORE)
        company = apps.get_model("accounts", "Company").objects.create(name="Volume Co")
        entries = apps.get_model("transactions", "Transaction")
        validation = apps.get_model("transactions", "AccountValidation").objects.create(
            company=company, kind="prenote", effective_date=date(2026, 11, 2), account_hash="prenoted"
        )

        def entry(created_at: datetime, amount: int, status: str = "Pending", **more) -> None:
            row = entries.objects.create(
                company=company, method="ACH", type="Debit", amount=amount, status=status, name="Ada",
                effective_date=date(2026, 11, 3), account_type="Checking", routing_number="021000021", **more,
            )  # fmt: skip
            entries.objects.filter(pk=row.pk).update(created_at=created_at)

        entry(datetime(2026, 11, 2, 15, tzinfo=UTC), 1_000)
        entry(datetime(2026, 11, 3, 3, tzinfo=UTC), 200, status="HELD")  # 22:00 on Nov 2 in New York
        entry(datetime(2026, 11, 2, 16, tzinfo=UTC), 5_000, status="Voided")
        entry(datetime(2026, 11, 2, 17, tzinfo=UTC), 0, account_validation=validation)
        entry(datetime(2026, 11, 3, 15, tzinfo=UTC), 300)

        apps = migrate(AFTER)

        kept = apps.get_model("transactions", "DailyVolume").objects.filter(company_id=company.pk)
        assert sorted(kept.values_list("day", "amount")) == [(date(2026, 11, 2), 1_200), (date(2026, 11, 3), 300)]
