"""reporting.PayerName: each company's distinct transaction names, kept by triggers on the transaction table, with
a trigram index for `like`. It replaces the trigram index on transactions_transaction.name, which made counting a
common name's matches read tens of thousands of heap pages.

SQLite drops a table's triggers when Django rebuilds the table (some AlterField/RemoveField): a later migration
that rebuilds transactions_transaction on SQLite must create these triggers again."""
import django.db.models.deletion
from django.db import migrations, models

from vault.migration_sql import run_sql_by_vendor

POSTGRES_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION reporting_payer_names_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        -- Sorted, so two statements adding the same new names take their index locks in one order.
        INSERT INTO reporting_payername (company_id, name)
        SELECT DISTINCT company_id, name FROM inserted ORDER BY company_id, name
        ON CONFLICT (company_id, name) DO NOTHING;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER reporting_payer_names_inserted AFTER INSERT ON transactions_transaction
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION reporting_payer_names_inserted()
    """,
    """
    CREATE OR REPLACE FUNCTION reporting_payer_name_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO reporting_payername (company_id, name) VALUES (NEW.company_id, NEW.name)
        ON CONFLICT (company_id, name) DO NOTHING;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER reporting_payer_name_changed AFTER UPDATE OF company_id, name ON transactions_transaction
    FOR EACH ROW WHEN (OLD.company_id IS DISTINCT FROM NEW.company_id OR OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION reporting_payer_name_changed()
    """,
    """
    INSERT INTO reporting_payername (company_id, name)
    SELECT DISTINCT company_id, name FROM transactions_transaction ON CONFLICT (company_id, name) DO NOTHING
    """,
    "CREATE INDEX IF NOT EXISTS payer_name_upper_trgm ON reporting_payername USING gin ((UPPER(name::text)) gin_trgm_ops)",
    "DROP INDEX IF EXISTS txn_name_upper_trgm",
]
POSTGRES_BACKWARD = [
    "CREATE INDEX IF NOT EXISTS txn_name_upper_trgm ON transactions_transaction "
    "USING gin ((UPPER(name::text)) gin_trgm_ops)",
    "DROP TRIGGER IF EXISTS reporting_payer_name_changed ON transactions_transaction",
    "DROP FUNCTION IF EXISTS reporting_payer_name_changed()",
    "DROP TRIGGER IF EXISTS reporting_payer_names_inserted ON transactions_transaction",
    "DROP FUNCTION IF EXISTS reporting_payer_names_inserted()",
]
SQLITE_FORWARD = [
    """
    CREATE TRIGGER reporting_payer_name_inserted AFTER INSERT ON transactions_transaction
    BEGIN
        INSERT OR IGNORE INTO reporting_payername (company_id, name) VALUES (NEW.company_id, NEW.name);
    END
    """,
    """
    CREATE TRIGGER reporting_payer_name_changed AFTER UPDATE OF company_id, name ON transactions_transaction
    BEGIN
        INSERT OR IGNORE INTO reporting_payername (company_id, name) VALUES (NEW.company_id, NEW.name);
    END
    """,
    "INSERT OR IGNORE INTO reporting_payername (company_id, name) "
    "SELECT DISTINCT company_id, name FROM transactions_transaction",
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS reporting_payer_name_changed",
    "DROP TRIGGER IF EXISTS reporting_payer_name_inserted",
]



class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_default_roles_action_group_cache"),
        ("reporting", "0001_report_indexes"),
        ("transactions", "0003_return_code_copy_and_name_index"),
    ]

    operations = [
        migrations.CreateModel(
            name="PayerName",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(blank=True, max_length=255)),
                (
                    "company",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="accounts.company"
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("company", "name"), name="payer_name_company_name")],
            },
        ),
        run_sql_by_vendor(
            {"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD},
            {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD},
        ),
    ]
