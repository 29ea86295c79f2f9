"""Seeds the back-office groups (backoffice.groups.STAFF_GROUPS) with their permissions."""

from django.db import migrations

from backoffice.groups import staff_groups_sync


def seed(apps, schema_editor):
    staff_groups_sync(apps, missing_ok=True)  # 0002 grants what later migrations of other apps add


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("accounts", "0008_company_account_validation"),
        ("customers", "0001_initial"),
        ("payments", "0002_payment_method_validation"),
        ("transactions", "0012_company_keys"),
        ("events", "0002_grant_webhook_actions"),
    ]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
