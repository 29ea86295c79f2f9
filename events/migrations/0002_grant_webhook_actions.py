"""ManageWebhooks and ViewEvents join the admin role and the live API-key action group (CONTRACT 9)."""

from django.db import migrations

from accounts.action_grants import actions_granted

class Migration(migrations.Migration):
    dependencies = [("events", "0001_initial"), ("accounts", "0002_default_roles_action_group_cache")]

    operations = [actions_granted(["ManageWebhooks", "ViewEvents"])]
