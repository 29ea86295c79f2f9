"""ManagePayouts (CONTRACT 18): new work, so the admin role and the live API-key group get it."""

from django.db import migrations

from accounts.action_grants import actions_granted


class Migration(migrations.Migration):
    dependencies = [("payouts", "0001_initial"), ("accounts", "0020_ach_company_id_label")]

    operations = [actions_granted(["ManagePayouts"])]
