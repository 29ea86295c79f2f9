"""RefundTransaction (CONTRACT 12): refunds were made by `reverse` until now, so every role and action group that
could reverse keeps what it could do and gains it."""

from django.db import migrations

NEW_ACTIONS = ["RefundTransaction"]


def grant(apps, schema_editor):
    for model_name in ("Role", "ActionGroup"):
        for row in apps.get_model("accounts", model_name).objects.all():
            if "ReverseTransaction" in row.actions:
                row.actions = [*row.actions, *(a for a in NEW_ACTIONS if a not in row.actions)]
                row.save(update_fields=["actions"])


def revoke(apps, schema_editor):
    for model_name in ("Role", "ActionGroup"):
        for row in apps.get_model("accounts", model_name).objects.all():
            row.actions = [a for a in row.actions if a not in NEW_ACTIONS]
            row.save(update_fields=["actions"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0012_company_credit_monitoring")]

    operations = [migrations.RunPython(grant, revoke)]
