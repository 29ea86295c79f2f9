"""Grants Support and Risk the view of schedules and the stop action (issue 47: support sees schedules read-only
except stop, with a reason)."""

from django.db import migrations

from backoffice.groups import staff_groups_sync


def sync(apps, schema_editor):
    staff_groups_sync(apps, missing_ok=True)


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0003_mandate_permissions"),
        ("schedules", "0003_schedule_stop_permission"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
