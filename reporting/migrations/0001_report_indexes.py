"""Indexes for the reporting access paths (PostgreSQL only; SQLite test databases need none).

`like` on name is `UPPER(name::text) LIKE UPPER('%...%')` (Django's icontains), so the trigram index is on that
expression. Plain CREATE INDEX (not CONCURRENTLY) because migrations run in a transaction; on a large live table
build them by hand with CONCURRENTLY first, then this migration's IF NOT EXISTS makes it a no-op."""
from django.db import migrations

POSTGRES_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX IF NOT EXISTS txn_name_upper_trgm ON transactions_transaction "
    "USING gin ((UPPER(name::text)) gin_trgm_ops)",
    "CREATE INDEX IF NOT EXISTS txn_company_created_id ON transactions_transaction (company_id, created_at, id)",
    # amount ranges within a type (Debit/Credit): counted from the index alone.
    "CREATE INDEX IF NOT EXISTS txn_company_type_amount ON transactions_transaction (company_id, type, amount)",
]
POSTGRES_BACKWARD = [
    "DROP INDEX IF EXISTS txn_company_type_amount",
    "DROP INDEX IF EXISTS txn_company_created_id",
    "DROP INDEX IF EXISTS txn_name_upper_trgm",
]


def _run(statements):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor != "postgresql":
            return
        for statement in statements:
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("transactions", "0001_initial")]

    operations = [migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD), elidable=False)]
