"""The Finance group (CONTRACT 19): the reconciliation queue, matching by hand, and write-offs with a second
person's approval."""

from django.db import migrations

from backoffice.groups import staff_groups_sync


def sync(apps, schema_editor):
    staff_groups_sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0004_schedule_permissions"),
        ("reconciliation", "0001_initial"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
