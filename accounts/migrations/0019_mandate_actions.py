"""ManageMandates, ViewMandates and ManageSchedules (CONTRACT 14): new work, so the admin role and the live API-key
group get them."""

from django.db import migrations

from accounts.action_grants import actions_granted


class Migration(migrations.Migration):
    dependencies = [("accounts", "0018_mandate_policy")]

    operations = [actions_granted(["ManageMandates", "ViewMandates", "ManageSchedules"])]
