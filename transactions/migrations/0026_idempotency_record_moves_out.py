# IdempotencyRecord now belongs to the idempotency app (idempotency/0001), which keeps this table: the state moves,
# the database is not touched.
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("transactions", "0025_index_awaiting_late_settlement")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        )
    ]
