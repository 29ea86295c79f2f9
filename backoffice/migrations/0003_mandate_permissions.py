"""Grants Support and Risk the view of mandates and the revoke action (issue 47: support sees mandates read-only
except revoke, with a reason)."""

from django.db import migrations

from backoffice.groups import staff_groups_sync


def sync(apps, schema_editor):
    staff_groups_sync(apps, missing_ok=True)  # 0004 grants what later migrations add


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0002_activate_and_lift_permissions"),
        ("mandates", "0002_mandate_revoke_permission"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
