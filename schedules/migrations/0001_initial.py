"""Schedules (CONTRACT 14): merchant-owned tables, so their foreign keys to customers, saved methods, mandates and
transactions (keyed (id, company_id) already) are made by company_keys, not Django's REFERENCES (id) (README, "worth
knowing")."""

import django.db.models.deletion
import django.utils.timezone
import uuid
from django.db import migrations, models

from vault.company_keys import company_keys


def tables(*, db_constraint: bool) -> list:
    return [
        migrations.CreateModel(
            name='Schedule',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('uuid', models.UUIDField(default=uuid.uuid4, editable=False, unique=True)),
                ('amount', models.BigIntegerField()),
                ('interval', models.CharField(choices=[('weekly', 'Weekly'), ('biweekly', 'Biweekly'), ('monthly', 'Monthly')], max_length=8)),
                ('day_of_month', models.PositiveSmallIntegerField(blank=True, null=True)),
                ('start_date', models.DateField()),
                ('end_date', models.DateField(blank=True, null=True)),
                ('count', models.PositiveIntegerField(blank=True, null=True)),
                ('status', models.CharField(choices=[('active', 'Active'), ('paused', 'Paused'), ('cancelled', 'Cancelled'), ('stopped', 'Stopped'), ('completed', 'Completed')], default='active', max_length=9)),
                ('status_reason', models.CharField(blank=True, max_length=255)),
                ('next_index', models.PositiveIntegerField(default=0, editable=False)),
                ('next_notice_index', models.PositiveIntegerField(default=0, editable=False)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('company', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='schedules', to='accounts.company')),
                ('customer', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='schedules', to='customers.customer', db_constraint=db_constraint)),
                ('mandate', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='schedules', to='mandates.mandate', db_constraint=db_constraint)),
                ('payment_method', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='schedules', to='payments.paymentmethod', db_constraint=db_constraint)),
            ],
        ),
        migrations.CreateModel(
            name='ScheduledDebit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('date', models.DateField(help_text="The schedule's date (rolled to a banking day).")),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False)),
                ('company', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='accounts.company')),
                ('schedule', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='debits', to='schedules.schedule', db_constraint=db_constraint)),
                ('transaction', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='scheduled_debit', to='transactions.transaction', db_constraint=db_constraint)),
            ],
        ),
        migrations.AddIndex(
            model_name='schedule',
            index=models.Index(fields=['company', 'created_at'], name='schedule_company_created'),
        ),
        migrations.AddIndex(
            model_name='schedule',
            index=models.Index(condition=models.Q(('status', 'active')), fields=['status'], name='schedule_active'),
        ),
        migrations.AddConstraint(
            model_name='schedule',
            constraint=models.CheckConstraint(condition=models.Q(('amount__gt', 0)), name='schedule_amount_positive'),
        ),
        migrations.AddConstraint(
            model_name='schedule',
            constraint=models.CheckConstraint(condition=models.Q(('day_of_month__isnull', True), models.Q(('day_of_month__gte', 1), ('day_of_month__lte', 31)), _connector='OR'), name='schedule_day_of_month_range'),
        ),
        migrations.AddConstraint(
            model_name='schedule',
            constraint=models.CheckConstraint(condition=models.Q(('count__isnull', True), ('count__gte', 1), _connector='OR'), name='schedule_count_positive'),
        ),
        migrations.AddConstraint(
            model_name='schedule',
            constraint=models.CheckConstraint(condition=models.Q(('end_date__isnull', True), ('count__isnull', True), _connector='OR'), name='schedule_end_date_or_count'),
        ),
        migrations.AddConstraint(
            model_name='scheduleddebit',
            constraint=models.UniqueConstraint(fields=('schedule', 'date'), name='scheduled_debit_once_per_date'),
        ),
    ]


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0019_mandate_actions'),
        ('customers', '0001_initial'),
        ('mandates', '0001_initial'),
        ('payments', '0004_payment_method_account_number_hash'),
        ('transactions', '0033_transaction_mandate'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=tables(db_constraint=True), database_operations=tables(db_constraint=False)
        ),
        company_keys("schedules.Schedule", "schedules.ScheduledDebit"),
    ]
