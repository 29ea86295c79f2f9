"""Transaction.return_code: a copy of its return's code, kept by triggers on the return table, so `returncode`
filters count from the (company, return_code) index instead of joining every return of the company.

SQLite drops a table's triggers when Django rebuilds the table (some AlterField/RemoveField): a later migration
that rebuilds transactions_transactionreturn on SQLite must create these triggers again."""
from django.db import migrations, models

from vault.migration_sql import run_sql_by_vendor

POSTGRES_FORWARD = [
    """
    CREATE OR REPLACE FUNCTION transactions_return_code_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE transactions_transaction AS t SET return_code = r.return_code
        FROM inserted AS r
        WHERE t.id = r.transaction_id AND t.return_code IS DISTINCT FROM r.return_code;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER transactions_return_code_inserted AFTER INSERT ON transactions_transactionreturn
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION transactions_return_code_inserted()
    """,
    """
    CREATE OR REPLACE FUNCTION transactions_return_code_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE transactions_transaction SET return_code = NULL WHERE id = OLD.transaction_id;
        IF TG_OP = 'UPDATE' THEN
            UPDATE transactions_transaction SET return_code = NEW.return_code WHERE id = NEW.transaction_id;
        END IF;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER transactions_return_code_changed
    AFTER UPDATE OF transaction_id, return_code OR DELETE ON transactions_transactionreturn
    FOR EACH ROW EXECUTE FUNCTION transactions_return_code_changed()
    """,
]
POSTGRES_BACKWARD = [
    "DROP TRIGGER IF EXISTS transactions_return_code_changed ON transactions_transactionreturn",
    "DROP FUNCTION IF EXISTS transactions_return_code_changed()",
    "DROP TRIGGER IF EXISTS transactions_return_code_inserted ON transactions_transactionreturn",
    "DROP FUNCTION IF EXISTS transactions_return_code_inserted()",
]
SQLITE_FORWARD = [
    """
    CREATE TRIGGER transactions_return_code_inserted AFTER INSERT ON transactions_transactionreturn
    BEGIN
        UPDATE transactions_transaction SET return_code = NEW.return_code WHERE id = NEW.transaction_id;
    END
    """,
    """
    CREATE TRIGGER transactions_return_code_updated
    AFTER UPDATE OF transaction_id, return_code ON transactions_transactionreturn
    BEGIN
        UPDATE transactions_transaction SET return_code = NULL WHERE id = OLD.transaction_id;
        UPDATE transactions_transaction SET return_code = NEW.return_code WHERE id = NEW.transaction_id;
    END
    """,
    """
    CREATE TRIGGER transactions_return_code_deleted AFTER DELETE ON transactions_transactionreturn
    BEGIN
        UPDATE transactions_transaction SET return_code = NULL WHERE id = OLD.transaction_id;
    END
    """,
]
SQLITE_BACKWARD = [
    "DROP TRIGGER IF EXISTS transactions_return_code_deleted",
    "DROP TRIGGER IF EXISTS transactions_return_code_updated",
    "DROP TRIGGER IF EXISTS transactions_return_code_inserted",
]
BACKFILL = """
    UPDATE transactions_transaction SET return_code = (
        SELECT r.return_code FROM transactions_transactionreturn r WHERE r.transaction_id = transactions_transaction.id
    )
    WHERE id IN (SELECT transaction_id FROM transactions_transactionreturn)
"""



class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0002_default_roles_action_group_cache"),
        ("customers", "0001_initial"),
        ("payments", "0001_initial"),
        ("transactions", "0002_company_method_batch_index"),
    ]

    operations = [
        migrations.AddField(
            model_name="transaction",
            name="return_code",
            field=models.CharField(blank=True, editable=False, max_length=4, null=True),
        ),
        migrations.AddIndex(
            model_name="transaction",
            index=models.Index(fields=["company", "name"], name="txn_company_name"),
        ),
        migrations.AddIndex(
            model_name="transaction",
            index=models.Index(fields=["company", "return_code"], name="txn_company_return_code"),
        ),
        run_sql_by_vendor(
            {"postgresql": [*POSTGRES_FORWARD, BACKFILL], "sqlite": [*SQLITE_FORWARD, BACKFILL]},
            {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD},
        ),
    ]
