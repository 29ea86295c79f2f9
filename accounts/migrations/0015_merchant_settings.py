"""Merchant settings on their own model: a one-to-one MerchantSettings row per company holds the risk limits, the
cut-off and Same Day windows, the account-validation policy, credit monitoring and the return-rate program (and its
has_debit_holds flag); accounts_company keeps identity. Every existing company's values are copied, both ways."""

import accounts.models
import django.db.models.deletion
from django.db import migrations, models

COLUMNS = (
    "hold_over",
    "decline_over",
    "daily_volume_limit",
    "cutoff_time",
    "same_day_windows",
    "account_validation",
    "credit_hold_new_account_days",
    "credit_velocity_amount",
    "credit_velocity_count",
    "credit_velocity_days",
    "return_rate_warning_percent",
    "hold_debits_on_breach",
    "has_debit_holds",
)


def _checked_now(schema_editor) -> None:
    # The inserts' deferred foreign-key checks run here, so the ALTER TABLEs that follow find no pending events.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def copy_settings(apps, schema_editor) -> None:
    columns = ", ".join(COLUMNS)
    schema_editor.execute(
        f"INSERT INTO accounts_merchantsettings (company_id, {columns}) SELECT id, {columns} FROM accounts_company"
    )
    _checked_now(schema_editor)


def copy_settings_back(apps, schema_editor) -> None:
    columns = ", ".join(COLUMNS)
    schema_editor.execute(
        f"UPDATE accounts_company SET ({columns}) = (SELECT {columns} FROM accounts_merchantsettings s "
        "WHERE s.company_id = accounts_company.id) "
        "WHERE EXISTS (SELECT 1 FROM accounts_merchantsettings s WHERE s.company_id = accounts_company.id)"
    )
    _checked_now(schema_editor)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0014_company_same_day_windows'),
    ]

    operations = [
        migrations.CreateModel(
            name='MerchantSettings',
            fields=[
                ('company', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='merchant_settings', serialize=False, to='accounts.company')),
                ('hold_over', models.BigIntegerField(default=1000000, help_text='Charges above this many cents are HELD.')),
                ('decline_over', models.BigIntegerField(default=2500000, help_text='Charges above this many cents are DECLINED.')),
                ('daily_volume_limit', models.BigIntegerField(blank=True, help_text='Cents per day; a charge that would pass it is HELD. Empty: no limit.', null=True)),
                ('cutoff_time', models.TimeField(default='16:00', help_text='ACH cut-off (Eastern time) for same-day processing.')),
                ('same_day_windows', models.CharField(default='10:30,14:45,16:45', help_text='Same Day ACH windows (Eastern, HH:MM, comma-separated, ascending): an entry that asked for same day and is batched after the last one goes out next day.', max_length=60, validators=[accounts.models.validate_same_day_windows])),
                ('account_validation', models.CharField(choices=[('off', 'off: charge as usual (the merchant validates accounts another way)'), ('require', 'require: decline until validated'), ('prenote_first', 'prenote first: send a prenote and hold the debit until validated')], default='off', help_text='WEB debits to a saved account that is not validated: off, require or prenote_first.', max_length=14)),
                ('credit_hold_new_account_days', models.PositiveSmallIntegerField(blank=True, help_text='Hold credits to an account added or changed (a NOC correction included) within this many banking days. Empty: off.', null=True)),
                ('credit_velocity_amount', models.BigIntegerField(blank=True, help_text="Hold a credit that takes one receiver account's credits in the velocity window over this many cents. Empty: off.", null=True)),
                ('credit_velocity_count', models.PositiveIntegerField(blank=True, help_text="Hold a credit that takes one receiver account's credits in the velocity window over this number. Empty: off.", null=True)),
                ('credit_velocity_days', models.PositiveSmallIntegerField(default=1, help_text='The velocity window: this many days up to the credit.')),
                ('return_rate_warning_percent', models.PositiveSmallIntegerField(default=80, help_text='A return rate at this percentage of its Nacha threshold writes a warning alert.')),
                ('hold_debits_on_breach', models.BooleanField(default=True, help_text="A return rate over its threshold holds the company's new debits (holdCode RTN).")),
                ('has_debit_holds', models.BooleanField(default=False, editable=False)),
            ],
            options={
                'verbose_name': 'merchant settings',
                'verbose_name_plural': 'merchant settings',
            },
        ),
        migrations.AddConstraint(
            model_name='merchantsettings',
            constraint=models.CheckConstraint(condition=models.Q(('return_rate_warning_percent__gte', 1), ('return_rate_warning_percent__lte', 100)), name='merchant_settings_return_rate_warning_percent_range'),
        ),
        migrations.AddConstraint(
            model_name='merchantsettings',
            constraint=models.CheckConstraint(condition=models.Q(('hold_over__gte', 0)), name='merchant_settings_hold_over_nonnegative'),
        ),
        migrations.AddConstraint(
            model_name='merchantsettings',
            constraint=models.CheckConstraint(condition=models.Q(('decline_over__gte', 0)), name='merchant_settings_decline_over_nonnegative'),
        ),
        migrations.AddConstraint(
            model_name='merchantsettings',
            constraint=models.CheckConstraint(condition=models.Q(('credit_velocity_amount__isnull', True), ('credit_velocity_amount__gte', 0), _connector='OR'), name='merchant_settings_credit_velocity_amount_nonnegative'),
        ),
        migrations.AddConstraint(
            model_name='merchantsettings',
            constraint=models.CheckConstraint(condition=models.Q(('credit_velocity_days__gte', 1)), name='merchant_settings_credit_velocity_days_positive'),
        ),
        migrations.RunPython(copy_settings, copy_settings_back, elidable=False),
        migrations.RemoveConstraint(
            model_name='company',
            name='company_hold_over_nonnegative',
        ),
        migrations.RemoveConstraint(
            model_name='company',
            name='company_decline_over_nonnegative',
        ),
        migrations.RemoveConstraint(
            model_name='company',
            name='company_return_rate_warning_percent_range',
        ),
        migrations.RemoveConstraint(
            model_name='company',
            name='company_credit_velocity_amount_nonnegative',
        ),
        migrations.RemoveConstraint(
            model_name='company',
            name='company_credit_velocity_days_positive',
        ),
        migrations.RemoveField(
            model_name='company',
            name='account_validation',
        ),
        migrations.RemoveField(
            model_name='company',
            name='credit_hold_new_account_days',
        ),
        migrations.RemoveField(
            model_name='company',
            name='credit_velocity_amount',
        ),
        migrations.RemoveField(
            model_name='company',
            name='credit_velocity_count',
        ),
        migrations.RemoveField(
            model_name='company',
            name='credit_velocity_days',
        ),
        migrations.RemoveField(
            model_name='company',
            name='cutoff_time',
        ),
        migrations.RemoveField(
            model_name='company',
            name='daily_volume_limit',
        ),
        migrations.RemoveField(
            model_name='company',
            name='decline_over',
        ),
        migrations.RemoveField(
            model_name='company',
            name='has_debit_holds',
        ),
        migrations.RemoveField(
            model_name='company',
            name='hold_debits_on_breach',
        ),
        migrations.RemoveField(
            model_name='company',
            name='hold_over',
        ),
        migrations.RemoveField(
            model_name='company',
            name='return_rate_warning_percent',
        ),
        migrations.RemoveField(
            model_name='company',
            name='same_day_windows',
        ),
    ]
