"""Trace numbers unique per originating DFI and processing day (the sequence restarts daily), and the SHA-256 of
each NACHA file written before 0004 added the column (a batch settles only once its file is on disk).

No operation here rebuilds transactions_transaction on SQLite: a nullable column without a default is an
ALTER TABLE ADD COLUMN, and a conditional unique constraint is a CREATE UNIQUE INDEX."""

import hashlib
from pathlib import Path

from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def backfill(apps, schema_editor):
    Transaction = apps.get_model("transactions", "Transaction")
    Batch = apps.get_model("transactions", "Batch")
    OriginationFile = apps.get_model("transactions", "OriginationFile")
    # A batch's effective date is the processing day of its file.
    Transaction.objects.exclude(trace_number="").filter(batch__isnull=False).update(
        trace_date=Subquery(Batch.objects.filter(pk=OuterRef("batch_id")).values("effective_date")[:1])
    )
    # A file already on disk gets its digest; one that is missing stays unwritten and the next
    # `originate` writes it again from the database.
    for origination_file in OriginationFile.objects.exclude(path="").filter(sha256="", purged_at__isnull=True):
        path = Path(origination_file.path)
        if path.is_file():
            origination_file.sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        else:
            origination_file.path = ""
        origination_file.save(update_fields=["sha256", "path"])


class Migration(migrations.Migration):
    dependencies = [
        ("transactions", "0004_secrets_at_rest"),
    ]

    operations = [
        migrations.AddField(
            model_name="transaction",
            name="trace_date",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.RemoveConstraint(
            model_name="transaction",
            name="transaction_unique_trace_number",
        ),
        migrations.AddConstraint(
            model_name="transaction",
            constraint=models.UniqueConstraint(
                condition=~models.Q(trace_number=""),
                fields=("trace_number", "trace_date"),
                name="transaction_unique_trace_number_day",
            ),
        ),
        # Last: on PostgreSQL, no ALTER TABLE may follow row updates in the same transaction.
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
