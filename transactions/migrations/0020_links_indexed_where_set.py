"""The indexes of a transaction's links to other rows (customer, payment method, retried or refunded entry, account
validation, batch, settlement, late-return settlement, return file) hold only the rows where the link is set. Django
indexed every row, NULL included, so each status move of the lifecycle commands wrote an entry in all nine, though
most rows have no retry, refund, validation or return and none has a batch or settlement before the lifecycle gives
it one: a bare status UPDATE of 20,000 entries ran at ~11,200 entries per PostgreSQL CPU-second with them and
~14,900 with five of them partial (bench_life1m, 2026-11-26). Every lookup by a link is `link = X`, which implies
that it is set, so each partial index serves what the full one did. The foreign key constraints stay (company_keys):
only the indexes change, by name (AlterField would drop and re-add each constraint)."""

import django.db.models.deletion
from django.db import migrations, models

# field -> (the index Django made for it, the field as the model now declares it)
LINKS = {
    "customer": (
        "transactions_transaction_customer_id_a7fa6b0f",
        dict(to="customers.customer", related_name="transactions"),
    ),
    "payment_method": (
        "transactions_transaction_payment_method_id_6d18e334",
        dict(to="payments.paymentmethod", related_name="transactions"),
    ),
    "retry_of": (
        "transactions_transaction_retry_of_id_b3120d54",
        dict(to="transactions.transaction", related_name="retries", editable=False),
    ),
    "refund_of": (
        "transactions_transaction_refund_of_id_f9041ab4",
        dict(to="transactions.transaction", related_name="refunds", editable=False),
    ),
    "account_validation": (
        "transactions_transaction_account_validation_id_5aec6b39",
        dict(to="transactions.accountvalidation", related_name="entries"),
    ),
    "batch": (
        "transactions_transaction_batch_id_e97efd4c",
        dict(to="transactions.batch", related_name="transactions"),
    ),
    "settlement": (
        "transactions_transaction_settlement_id_fd981060",
        dict(to="transactions.settlement", related_name="transactions"),
    ),
    "late_return_settlement": (
        "transactions_transaction_late_return_settlement_id_28c17bac",
        dict(to="transactions.settlement", related_name="late_return_transactions"),
    ),
    "ingestion_file": (
        "transactions_transaction_ingestion_file_id_1c99901a",
        dict(to="transactions.ingestionfile", related_name="transactions"),
    ),
}


def _unindexed(name: str, declared: dict) -> migrations.AlterField:
    return migrations.AlterField(
        model_name="transaction",
        name=name,
        field=models.ForeignKey(
            blank=True, null=True, db_index=False, on_delete=django.db.models.deletion.PROTECT, **declared
        ),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("customers", "0001_initial"),
        ("payments", "0004_payment_method_account_number_hash"),
        ("transactions", "0019_fewer_indexes_to_write"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[_unindexed(name, declared) for name, (_index, declared) in LINKS.items()],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {index}",
                    f"CREATE INDEX IF NOT EXISTS {index} ON transactions_transaction ({name}_id)",
                )
                for name, (index, _declared) in LINKS.items()
            ],
        ),
        *(
            migrations.AddIndex(
                model_name="transaction",
                index=models.Index(
                    condition=models.Q((f"{name}__isnull", False)), fields=[name], name=f"txn_{name}"
                ),
            )
            for name in LINKS
        ),
    ]
