"""ManageWebhooks and ViewEvents join the admin role and the live API-key action group (CONTRACT 9)."""

from django.db import migrations

NEW_ACTIONS = ["ManageWebhooks", "ViewEvents"]


def grant(apps, schema_editor):
    Role = apps.get_model("accounts", "Role")
    ActionGroup = apps.get_model("accounts", "ActionGroup")
    for row in [*Role.objects.filter(name="admin"), *ActionGroup.objects.filter(name="live-api-key")]:
        row.actions = [*row.actions, *(action for action in NEW_ACTIONS if action not in row.actions)]
        row.save(update_fields=["actions"])


def revoke(apps, schema_editor):
    Role = apps.get_model("accounts", "Role")
    ActionGroup = apps.get_model("accounts", "ActionGroup")
    for row in [*Role.objects.filter(name="admin"), *ActionGroup.objects.filter(name="live-api-key")]:
        row.actions = [action for action in row.actions if action not in NEW_ACTIONS]
        row.save(update_fields=["actions"])


class Migration(migrations.Migration):
    dependencies = [("events", "0001_initial"), ("accounts", "0002_default_roles_action_group_cache")]

    operations = [migrations.RunPython(grant, revoke)]
