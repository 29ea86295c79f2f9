"""Account blocks keyed on the account (CONTRACT 12): a merchant-owned table, so its foreign key to a transaction
is created without Django's REFERENCES transactions_transaction (id) and keyed by company_keys (README, "worth
knowing")."""

import uuid

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from vault.company_keys import company_keys


def account_block(*, db_constraint: bool) -> migrations.CreateModel:
    return migrations.CreateModel(
        name="AccountBlock",
        fields=[
            ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
            ("uuid", models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
            ("account_hash", models.CharField(help_text="Keyed hash of routing + account.", max_length=64)),
            ("account_number_hash", models.CharField(help_text="Keyed hash of the account number.", max_length=64)),
            ("routing_number", models.CharField(max_length=9)),
            ("account_last_four", models.CharField(max_length=4)),
            ("return_code", models.CharField(max_length=4)),
            ("blocked_at", models.DateTimeField()),
            ("lifted_at", models.DateTimeField(blank=True, null=True)),
            ("lift_reason", models.CharField(blank=True, max_length=255)),
            (
                "company",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.PROTECT, related_name="account_blocks", to="accounts.company"
                ),
            ),
            (
                "lifted_by",
                models.ForeignKey(
                    blank=True,
                    null=True,
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="+",
                    to=settings.AUTH_USER_MODEL,
                ),
            ),
            (
                "transaction",
                models.ForeignKey(
                    db_constraint=db_constraint,
                    help_text="The returned entry that placed it.",
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="+",
                    to="transactions.transaction",
                ),
            ),
        ],
        options={
            "permissions": [("lift_account_block", "Can lift account blocks")],
            "constraints": [
                models.UniqueConstraint(
                    condition=models.Q(("lifted_at__isnull", True)),
                    fields=("company", "account_hash"),
                    name="account_block_one_live",
                ),
                models.CheckConstraint(
                    condition=models.Q(
                        ("lifted_at__isnull", True), models.Q(("lift_reason", ""), _negated=True), _connector="OR"
                    ),
                    name="account_block_lift_has_reason",
                ),
            ],
        },
    )


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_company_account_validation"),
        ("transactions", "0015_account_validation_by_account"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[account_block(db_constraint=True)],
            database_operations=[account_block(db_constraint=False)],
        ),
        company_keys("transactions.AccountBlock"),
        migrations.AlterField(
            model_name="riskaction",
            name="action",
            field=models.CharField(
                choices=[
                    ("block_method", "Block Method"),
                    ("deactivate_customer", "Deactivate Customer"),
                    ("hold_customer_debits", "Hold Customer Debits"),
                    ("notify", "Notify"),
                    ("hold_company_debits", "Hold Company Debits"),
                    ("block_account", "Block Account"),
                    ("lift_account_block", "Lift Account Block"),
                ],
                max_length=24,
            ),
        ),
    ]
