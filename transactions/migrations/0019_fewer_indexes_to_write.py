"""Two indexes fewer on transactions_transaction, each of which every status move of the lifecycle commands rewrote:
the company foreign key's own index (every (company, ...) index leads with it) and (company, created_at), which
reporting's (company, created_at, id) covers on PostgreSQL. The foreign key constraint itself stays: only its index is
dropped (AlterField would drop and re-add the constraint, re-checking every row under a lock)."""

import django.db.models.deletion
from django.db import migrations, models

COMPANY_INDEX = "transactions_transaction_company_id_318a537a"


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0015_merchant_settings"),
        ("transactions", "0018_account_hash_index_with_id"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="transaction", name="txn_company_created"),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="transaction",
                    name="company",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="transactions",
                        to="accounts.company",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {COMPANY_INDEX}",
                    f"CREATE INDEX IF NOT EXISTS {COMPANY_INDEX} ON transactions_transaction (company_id)",
                ),
            ],
        ),
    ]
