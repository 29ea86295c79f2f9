"""The company's mandate policy (CONTRACT 14): off by default."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0017_back_office_words_and_return_rates_since'),
    ]

    operations = [
        migrations.AddField(
            model_name='merchantsettings',
            name='mandate_policy',
            field=models.CharField(choices=[('off', 'off: a debit may name a mandate, none is required'), ('require', 'require: every consumer debit needs an active mandate (409 mandate_required)')], default='off', help_text='Consumer debits without an active mandate for their customer, method and SEC code: off or require.', max_length=7),
        ),
    ]
