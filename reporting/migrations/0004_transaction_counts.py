"""reporting.TransactionCount: each company's number of transactions, split over up to 16 rows and kept by triggers
on the transaction table, so `totalRows` never counts rows (CONTRACT 7).

PostgreSQL: statement-level triggers over the transition table (one upsert per statement, so a COPY of a million
rows adds to one row once); the row is chosen by the backend, so concurrent charges of one merchant mostly add to
different rows. A delete takes its count off the company's lowest row (deletes are rare: a company's own deletion,
tests). SQLite: one writer at a time, so one row per company.

SQLite drops a table's triggers when Django rebuilds the table (some AlterField/RemoveField): a later migration
that rebuilds transactions_transaction on SQLite must create these triggers again."""

import django.db.models.deletion
from django.db import migrations, models

from vault.migration_sql import run_sql_by_vendor

POSTGRES_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION reporting_transaction_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO reporting_transactioncount (company_id, slot, row_count)
        SELECT company_id, mod(pg_backend_pid(), 16), count(*) FROM inserted GROUP BY company_id ORDER BY company_id
        ON CONFLICT (company_id, slot)
        DO UPDATE SET row_count = reporting_transactioncount.row_count + EXCLUDED.row_count;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER reporting_transaction_counts_inserted AFTER INSERT ON transactions_transaction
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION reporting_transaction_counts_inserted()
    """,
    """
    CREATE OR REPLACE FUNCTION reporting_transaction_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        -- Only rows that exist: when a company is deleted its count rows may already be gone.
        UPDATE reporting_transactioncount AS counted SET row_count = counted.row_count - gone.n
        FROM (SELECT company_id, count(*) AS n FROM deleted GROUP BY company_id) AS gone
        WHERE counted.company_id = gone.company_id
          AND counted.slot = (SELECT min(slot) FROM reporting_transactioncount WHERE company_id = gone.company_id);
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER reporting_transaction_counts_deleted AFTER DELETE ON transactions_transaction
    REFERENCING OLD TABLE AS deleted FOR EACH STATEMENT EXECUTE FUNCTION reporting_transaction_counts_deleted()
    """,
    """
    CREATE OR REPLACE FUNCTION reporting_transaction_counts_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        DELETE FROM reporting_transactioncount;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER reporting_transaction_counts_truncated AFTER TRUNCATE ON transactions_transaction
    FOR EACH STATEMENT EXECUTE FUNCTION reporting_transaction_counts_truncated()
    """,
    """
    INSERT INTO reporting_transactioncount (company_id, slot, row_count)
    SELECT company_id, 0, count(*) FROM transactions_transaction GROUP BY company_id
    """,
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS reporting_transaction_counts_truncated ON transactions_transaction",
    "DROP FUNCTION IF EXISTS reporting_transaction_counts_truncated()",
    "DROP TRIGGER IF EXISTS reporting_transaction_counts_deleted ON transactions_transaction",
    "DROP FUNCTION IF EXISTS reporting_transaction_counts_deleted()",
    "DROP TRIGGER IF EXISTS reporting_transaction_counts_inserted ON transactions_transaction",
    "DROP FUNCTION IF EXISTS reporting_transaction_counts_inserted()",
]
SQLITE_FORWARD = [
    """
    CREATE TRIGGER reporting_transaction_count_inserted AFTER INSERT ON transactions_transaction
    BEGIN
        INSERT INTO reporting_transactioncount (company_id, slot, row_count) VALUES (NEW.company_id, 0, 1)
        ON CONFLICT (company_id, slot) DO UPDATE SET row_count = row_count + 1;
    END
    """,
    """
    CREATE TRIGGER reporting_transaction_count_deleted AFTER DELETE ON transactions_transaction
    BEGIN
        UPDATE reporting_transactioncount SET row_count = row_count - 1
        WHERE company_id = OLD.company_id
          AND slot = (SELECT min(slot) FROM reporting_transactioncount WHERE company_id = OLD.company_id);
    END
    """,
    "INSERT INTO reporting_transactioncount (company_id, slot, row_count) "
    "SELECT company_id, 0, count(*) FROM transactions_transaction GROUP BY company_id",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS reporting_transaction_count_deleted",
    "DROP TRIGGER IF EXISTS reporting_transaction_count_inserted",
]


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_default_roles_action_group_cache"),
        ("reporting", "0003_csv_export_lease"),
        ("transactions", "0003_return_code_copy_and_name_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="TransactionCount",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slot", models.PositiveSmallIntegerField()),
                ("row_count", models.BigIntegerField()),
                (
                    "company",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="accounts.company"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("company", "slot"), name="transaction_count_company_slot")
                ],
            },
        ),
        run_sql_by_vendor(
            {"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD},
            {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD},
        ),
    ]
