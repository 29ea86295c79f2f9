"""Account validation (CONTRACT 11): validations, their entries on the transaction table (a prenote's amount is 0),
entry descriptions and purposes, batches split by description.

Changing the amount check constraint rebuilds transactions_transaction on SQLite, which drops the payer-name
triggers of reporting 0002, the count triggers of reporting 0004 and the created-event trigger of 0009, and the rebuild's rename fails while 0003's return-code triggers on the return table
name it: those are dropped first, and all of them are created again at the end (SQLite only; PostgreSQL keeps
its triggers through ALTER TABLE)."""
import importlib

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.db import migrations, models


from vault.migration_sql import run_sql_by_vendor

payer_names = importlib.import_module("reporting.migrations.0002_payer_names")
return_code_copy = importlib.import_module("transactions.migrations.0003_return_code_copy_and_name_index")
created_event = importlib.import_module("transactions.migrations.0009_transaction_events")
transaction_counts = importlib.import_module("reporting.migrations.0004_transaction_counts")
# Its two triggers only: the rest of its SQLite statements backfill the counts, which the rebuild keeps.
TRANSACTION_COUNT_TRIGGERS = [s for s in transaction_counts.SQLITE_FORWARD if "CREATE TRIGGER" in s]


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0001_initial'),
        ('customers', '0001_initial'),
        ('payments', '0002_payment_method_validation'),
        ('reporting', '0004_transaction_counts'),
        ('transactions', '0010_return_rate_program'),
    ]

    operations = [
        run_sql_by_vendor({"sqlite": return_code_copy.SQLITE_BACKWARD}, {"sqlite": return_code_copy.SQLITE_FORWARD}),
        migrations.CreateModel(
            name='AccountValidation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('uuid', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('kind', models.CharField(choices=[('prenote', 'Prenote'), ('microdeposits', 'Microdeposits')], max_length=14)),
                ('state', models.CharField(choices=[('pending', 'Pending'), ('validated', 'Validated'), ('failed', 'Failed')], default='pending', max_length=10)),
                ('effective_date', models.DateField(help_text='The effective date of its entries.')),
                ('amounts_hash', models.CharField(blank=True, help_text='Keyed hash of the micro-deposit amounts.', max_length=64)),
                ('attempts', models.PositiveSmallIntegerField(default=0)),
                ('expires_at', models.DateTimeField(blank=True, null=True)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('failure_reason', models.CharField(blank=True, max_length=255)),
            ],
        ),
        migrations.RemoveConstraint(
            model_name='transaction',
            name='transaction_amount_positive',
        ),
        migrations.AddField(
            model_name='batch',
            name='entry_description',
            field=models.CharField(default='PAYMENT', help_text='Company Entry Description.', max_length=10),
        ),
        migrations.AddField(
            model_name='transaction',
            name='purpose',
            field=models.CharField(blank=True, choices=[('goods', 'Goods'), ('services', 'Services'), ('payroll', 'Payroll'), ('bill', 'Bill'), ('other', 'Other')], max_length=10, null=True),
        ),
        migrations.AddField(
            model_name='accountvalidation',
            name='company',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.company'),
        ),
        migrations.AddField(
            model_name='accountvalidation',
            name='payment_method',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='validations', to='payments.paymentmethod'),
        ),
        migrations.AddField(
            model_name='transaction',
            name='account_validation',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='entries', to='transactions.accountvalidation'),
        ),
        migrations.AddConstraint(
            model_name='transaction',
            constraint=models.CheckConstraint(condition=models.Q(('amount__gt', 0), models.Q(('account_validation__isnull', False), ('amount', 0)), _connector='OR'), name='transaction_amount_positive_or_prenote'),
        ),
        migrations.AddIndex(
            model_name='accountvalidation',
            index=models.Index(fields=['state', 'kind'], name='account_validation_state_kind'),
        ),
        migrations.AddConstraint(
            model_name='accountvalidation',
            constraint=models.UniqueConstraint(condition=models.Q(('state', 'pending')), fields=('company', 'payment_method'), name='account_validation_one_pending'),
        ),
        run_sql_by_vendor(
            {"sqlite": [*return_code_copy.SQLITE_FORWARD, *payer_names.SQLITE_FORWARD, *created_event.SQLITE_FORWARD, *TRANSACTION_COUNT_TRIGGERS]},
            {"sqlite": return_code_copy.SQLITE_BACKWARD},
        ),
    ]
