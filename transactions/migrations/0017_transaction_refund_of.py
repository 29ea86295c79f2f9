"""A refund credit points at the debit it refunds (CONTRACT 12). A foreign key between two merchant-owned rows: the
database gets FOREIGN KEY (refund_of_id, company_id) from company_foreign_key, not Django's REFERENCES (id)
(README, "worth knowing"). Nullable without a default, so adding it never rebuilds the table on SQLite."""

import django.db.models.deletion
from django.db import migrations, models

from vault.company_keys import company_foreign_key


def refund_of(*, db_constraint: bool) -> models.ForeignKey:
    return models.ForeignKey(
        blank=True,
        db_constraint=db_constraint,
        editable=False,
        null=True,
        on_delete=django.db.models.deletion.PROTECT,
        related_name="refunds",
        to="transactions.transaction",
    )


class Migration(migrations.Migration):
    dependencies = [("transactions", "0016_account_blocks")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddField(model_name="transaction", name="refund_of", field=refund_of(db_constraint=True))
            ],
            database_operations=[
                migrations.AddField(model_name="transaction", name="refund_of", field=refund_of(db_constraint=False))
            ],
        ),
        company_foreign_key("transactions.Transaction", "refund_of"),
    ]
