"""Grants the Risk group the permissions of their own that re-activating a customer and lifting a debit hold now
need (security review 2026-12-02 N15); Support has neither."""

from django.db import migrations

from backoffice.groups import staff_groups_sync


def sync(apps, schema_editor):
    staff_groups_sync(apps, missing_ok=True)  # 0003 grants the mandates' revoke, which may migrate after this


class Migration(migrations.Migration):
    dependencies = [
        ("backoffice", "0001_staff_groups"),
        ("customers", "0002_customer_activate_permission"),
        ("transactions", "0027_debithold_lift_permission"),
    ]

    operations = [migrations.RunPython(sync, migrations.RunPython.noop)]
