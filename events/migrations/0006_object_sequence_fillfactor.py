"""events_objectsequence leaves half of each page free (PostgreSQL only). Every event written bumps its object's
counter, and a lifecycle command bumps the counter of every entry it moves, once each, a chunk a transaction: with
room on its page each new version is a HOT update (no new entry in either index), and the version it replaced is
pruned on a later pass. Measured on 100,000 counters bumped a chunk of 5,000 at a time: at fillfactor 70 only about
36 of a page's 84 rows found room (114,000 of 200,000 updates HOT in two passes; all but 3,000 at 50, almost none at
100), and a pass took about 2.0 s at 100, 1.3 s at 70, 0.5-1.0 s at 50; the table ended smaller at 50 than at 100
(the non-HOT versions bloat it). Pages filled before this keep their rows packed until they are rewritten."""

from django.db import migrations

from vault.migration_sql import run_sql_by_vendor

TABLE = "events_objectsequence"


class Migration(migrations.Migration):
    dependencies = [("events", "0005_event_created_brin")]

    operations = [
        run_sql_by_vendor(
            {"postgresql": [f"ALTER TABLE {TABLE} SET (fillfactor = 50)"]},
            {"postgresql": [f"ALTER TABLE {TABLE} RESET (fillfactor)"]},
        ),
    ]
