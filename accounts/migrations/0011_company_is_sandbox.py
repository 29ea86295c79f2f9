"""CONTRACT 13: a company is live or sandbox; SimulateSandbox joins the admin role and the live API-key group
(the /sandbox routes answer 404 to a live company whatever its key may do)."""

from django.db import migrations, models

NEW_ACTIONS = ["SimulateSandbox"]


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
    dependencies = [("accounts", "0010_rate_window")]

    operations = [
        migrations.AddField(
            model_name="company",
            name="is_sandbox",
            field=models.BooleanField(
                default=False,
                editable=False,
                help_text="A sandbox company: its entries never go to the bank (files under var/sandbox/), its API "
                "keys start with vk_test_, and it may use the /sandbox simulation routes.",
            ),
        ),
        migrations.AddField(
            model_name="company",
            name="sandbox_clock_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.RunPython(grant, revoke),
    ]
