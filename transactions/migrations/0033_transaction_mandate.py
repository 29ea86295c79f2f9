"""A debit names the mandate it goes under (CONTRACT 14): a foreign key between two merchant-owned rows, made with
FOREIGN KEY (mandate_id, company_id) by company_foreign_key; nullable without a default, so adding it never rebuilds
the table on SQLite."""

import django.db.models.deletion
from django.db import migrations, models

from vault.company_keys import company_foreign_key


def mandate(*, db_constraint: bool) -> models.ForeignKey:
    return models.ForeignKey(
        blank=True,
        db_constraint=db_constraint,
        db_index=False,
        editable=False,
        null=True,
        on_delete=django.db.models.deletion.PROTECT,
        related_name="debits",
        to="mandates.mandate",
    )


class Migration(migrations.Migration):
    dependencies = [
        ("mandates", "0001_initial"),
        ("transactions", "0032_retries_and_finality"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(model_name="transaction", name="mandate", field=mandate(db_constraint=True))
            ],
            database_operations=[
                migrations.AddField(model_name="transaction", name="mandate", field=mandate(db_constraint=False))
            ],
        ),
        company_foreign_key("transactions.Transaction", "mandate"),
        migrations.AddIndex(
            model_name="transaction",
            index=models.Index(condition=models.Q(("mandate__isnull", False)), fields=["mandate"], name="txn_mandate"),
        ),
    ]
