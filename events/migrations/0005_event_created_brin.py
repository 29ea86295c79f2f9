"""`event_created` becomes a BRIN index on PostgreSQL. Events are written in time order, so a block range summary
(a few pages for millions of rows) finds the purge's and the replay's time ranges as well as the B-tree did, and
a new event costs it nothing while its range is unsummarized: the B-tree was one of the six indexes every charge and
every lifecycle move writes an entry in. Ranges are summarized as they fill (autosummarize, by autovacuum) and by the
purge before it reads (events.services.events_purge). SQLite keeps no index on the column (its databases are
small)."""

from django.db import migrations

POSTGRES_FORWARD = (
    "CREATE INDEX IF NOT EXISTS event_created ON events_event USING brin (created_at) WITH (autosummarize = on)"
)
POSTGRES_BACKWARD = "DROP INDEX IF EXISTS event_created"


def _run(statement):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(statement)

    return run


class Migration(migrations.Migration):
    dependencies = [("events", "0004_fewer_indexes_to_write")]

    operations = [
        migrations.RemoveIndex(model_name="event", name="event_created"),
        migrations.RunPython(_run(POSTGRES_FORWARD), _run(POSTGRES_BACKWARD), elidable=False),
    ]
