"""VoidTransaction and ReverseTransaction (CONTRACT 3) were part of CreateTransaction: every role and action group
that could charge keeps what it could do, so the admin role and the live API-key group gain both."""

from django.db import migrations

NEW_ACTIONS = ["VoidTransaction", "ReverseTransaction"]


def grant(apps, schema_editor):
    for model_name in ("Role", "ActionGroup"):
        for row in apps.get_model("accounts", model_name).objects.all():
            if "CreateTransaction" in row.actions:
                row.actions = [*row.actions, *(a for a in NEW_ACTIONS if a not in row.actions)]
                row.save(update_fields=["actions"])


def revoke(apps, schema_editor):
    for model_name in ("Role", "ActionGroup"):
        for row in apps.get_model("accounts", model_name).objects.all():
            row.actions = [a for a in row.actions if a not in NEW_ACTIONS]
            row.save(update_fields=["actions"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_api_key_actions")]

    operations = [migrations.RunPython(grant, revoke)]
