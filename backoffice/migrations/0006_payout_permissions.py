"""Grants Support and Risk the view of payout accounts, masked and with their history (CONTRACT 18)."""

from django.db import migrations

from backoffice.groups import staff_groups_sync


def sync(apps, schema_editor):
    staff_groups_sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0005_finance_group"),
        ("payouts", "0001_initial"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
