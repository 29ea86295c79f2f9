"""Dishonored / contested dishonored returns (a merchant-owned table: its foreign keys to a transaction and a return
are created without Django's REFERENCES ... (id) and keyed by company_keys, README "worth knowing"), the items of
an imported file that were parked (a global table, as the file is), and a return's timeliness (nullable columns
without a default: adding them never rebuilds transactions_transactionreturn on SQLite, so its trigger stays)."""

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from vault.company_keys import company_keys


def dishonored_return(*, db_constraint: bool) -> migrations.CreateModel:
    return migrations.CreateModel(
        name="DishonoredReturn",
        fields=[
            ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ("uuid", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
            (
                "kind",
                models.CharField(choices=[("dishonored", "Dishonored"), ("contested", "Contested")], max_length=10),
            ),
            ("code", models.CharField(max_length=4)),
            ("reason", models.CharField(max_length=255)),
            ("received_at", models.DateTimeField()),
            (
                "company",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.PROTECT, related_name="+", to="accounts.company"
                ),
            ),
            (
                "ingestion_file",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.PROTECT, related_name="+", to="transactions.ingestionfile"
                ),
            ),
            (
                "transaction",
                models.ForeignKey(
                    db_constraint=db_constraint,
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="dishonored_returns",
                    to="transactions.transaction",
                ),
            ),
            (
                "transaction_return",
                models.ForeignKey(
                    db_constraint=db_constraint,
                    help_text="What it answers.",
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="dishonored_returns",
                    to="transactions.transactionreturn",
                ),
            ),
        ],
        options={
            "indexes": [models.Index(fields=["company", "-received_at"], name="dishonored_return_company_at")],
            "constraints": [
                models.UniqueConstraint(
                    fields=("company", "transaction_return", "kind"), name="dishonored_return_one_per_kind"
                )
            ],
        },
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_company_account_validation"),
        ("transactions", "0012_company_keys"),
    ]

    operations = [
        migrations.AddField(
            model_name="transactionreturn",
            name="due_by",
            field=models.DateField(blank=True, help_text="Last day of the code's return time frame.", null=True),
        ),
        migrations.AddField(
            model_name="transactionreturn",
            name="is_untimely",
            field=models.BooleanField(
                blank=True, help_text="Received after its due-by day.", null=True, verbose_name="candidate to dishonor"
            ),
        ),
        migrations.CreateModel(
            name="ParkedReturnItem",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("trace_number", models.CharField(max_length=15)),
                ("code", models.CharField(max_length=4)),
                ("reason", models.CharField(max_length=255)),
                (
                    "transaction_uuid",
                    models.UUIDField(blank=True, help_text="The entry its trace number matched.", null=True),
                ),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                (
                    "ingestion_file",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="parked_items",
                        to="transactions.ingestionfile",
                    ),
                ),
            ],
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[dishonored_return(db_constraint=True)],
            database_operations=[dishonored_return(db_constraint=False)],
        ),
        company_keys("transactions.DishonoredReturn"),
    ]
