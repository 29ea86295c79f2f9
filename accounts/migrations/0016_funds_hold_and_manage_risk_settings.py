"""CONTRACT 15: the company's funds hold (finality), and ManageRiskSettings (PUT /settings/retry-policy) for the admin
role and the live API-key group, as every new action."""

import django.core.validators
from django.db import migrations, models

from accounts.action_grants import actions_granted


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0015_merchant_settings'),
    ]

    operations = [
        migrations.AddField(
            model_name='merchantsettings',
            name='funds_hold_banking_days',
            field=models.PositiveSmallIntegerField(default=2, help_text="A settled ACH debit's money is available this many banking days after its settlement (CONTRACT 15).", validators=[django.core.validators.MaxValueValidator(30)]),
        ),
        actions_granted(["ManageRiskSettings"]),
    ]
