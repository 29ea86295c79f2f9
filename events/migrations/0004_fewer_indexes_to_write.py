"""The company foreign keys of Event and ObjectSequence lose their own indexes: each table's (company, ...) indexes
lead with the column, and every event written (one per entry a lifecycle command moves) wrote both. The constraints
stay: only the indexes are dropped (AlterField would drop and re-add each constraint, re-checking every row)."""

import django.db.models.deletion
from django.db import migrations, models

DROPPED = {
    "event": ("events_event", "events_event_company_id_c2da4b18", django.db.models.deletion.PROTECT),
    "objectsequence": (
        "events_objectsequence",
        "events_objectsequence_company_id_8b80774c",
        django.db.models.deletion.CASCADE,
    ),
}


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0015_merchant_settings"),
        ("events", "0003_fair_fanout"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name=model,
                    name="company",
                    field=models.ForeignKey(
                        db_index=False, on_delete=on_delete, related_name="+", to="accounts.company"
                    ),
                )
                for model, (_table, _index, on_delete) in DROPPED.items()
            ],
            database_operations=[
                migrations.RunSQL(
                    f"DROP INDEX IF EXISTS {index}", f"CREATE INDEX IF NOT EXISTS {index} ON {table} (company_id)"
                )
                for table, index, _on_delete in DROPPED.values()
            ],
        ),
    ]
