"""RefundTransaction (CONTRACT 12): refunds were made by `reverse` until now, so every role and action group that
could reverse keeps what it could do and gains it."""

from django.db import migrations

from accounts.action_grants import actions_granted

class Migration(migrations.Migration):
    dependencies = [("accounts", "0012_company_credit_monitoring")]

    operations = [actions_granted(["RefundTransaction"], holders_of="ReverseTransaction")]
