# The model as transactions made it (its table keeps the name transactions_idempotencyrecord): state only.
import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("accounts", "0001_initial"),
        ("transactions", "0026_idempotency_record_moves_out"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID"),
                        ),
                        ("key", models.CharField(max_length=255)),
                        ("request_hash", models.CharField(max_length=64)),
                        ("response_status", models.PositiveSmallIntegerField(blank=True, null=True)),
                        ("response_body", models.JSONField(blank=True, null=True)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "company",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="+", to="accounts.company"
                            ),
                        ),
                        (
                            "transaction",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="transactions.transaction",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "transactions_idempotencyrecord",
                        "indexes": [models.Index(fields=["created_at"], name="idempotency_created_at")],
                        "constraints": [
                            models.UniqueConstraint(fields=("company", "key"), name="idempotency_company_key")
                        ],
                    },
                )
            ],
            database_operations=[],
        )
    ]
