"""A return names the one mandate accepted after it that lets debits past it (CONTRACT 14, 2026-12-07): a foreign key
between two merchant-owned rows, made with FOREIGN KEY (reauthorized_by_id, company_id) by company_foreign_key, as
0033 made the debit's; nullable without a default, so adding it never rebuilds the table on SQLite."""

import django.db.models.deletion
from django.db import migrations, models

from vault.company_keys import company_foreign_key


def reauthorized_by(*, db_constraint: bool) -> models.ForeignKey:
    return models.ForeignKey(
        blank=True,
        db_constraint=db_constraint,
        db_index=False,
        null=True,
        on_delete=django.db.models.deletion.PROTECT,
        related_name="+",
        to="mandates.mandate",
    )


class Migration(migrations.Migration):
    dependencies = [
        ("mandates", "0002_mandate_revoke_permission"),
        ("transactions", "0034_origination_file_awaiting_bank"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(
                    model_name="transactionreturn",
                    name="reauthorized_by",
                    field=reauthorized_by(db_constraint=True),
                )
            ],
            database_operations=[
                migrations.AddField(
                    model_name="transactionreturn",
                    name="reauthorized_by",
                    field=reauthorized_by(db_constraint=False),
                )
            ],
        ),
        company_foreign_key("transactions.TransactionReturn", "reauthorized_by"),
    ]
