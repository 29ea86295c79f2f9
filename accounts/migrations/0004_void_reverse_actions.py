"""VoidTransaction and ReverseTransaction (CONTRACT 3) were part of CreateTransaction: every role and action group
that could charge keeps what it could do, so the admin role and the live API-key group gain both."""

from django.db import migrations

from accounts.action_grants import actions_granted

class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_api_key_actions")]

    operations = [actions_granted(["VoidTransaction", "ReverseTransaction"], holders_of="CreateTransaction")]
