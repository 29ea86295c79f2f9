"""CONTRACT 13: a company is live or sandbox; SimulateSandbox joins the admin role and the live API-key group
(the /sandbox routes answer 404 to a live company whatever its key may do)."""

from django.db import migrations, models

from accounts.action_grants import actions_granted

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
        actions_granted(["SimulateSandbox"]),
    ]
