"""unpadded_account_hash on transactions and account blocks (vault.crypto.unpadded_account_hash): the keyed hash of
the account number without its leading zeros, set only when it has some, so that re-initiation and account blocks
(CONTRACT 12) see 088880001 and 88880001 as one account. Added nullable (no table rebuild, no default written).

Filled here for the rows the debit rules read: every account block, the debits returned R01/R09 in the last 180
days (re-initiation looks no further back), and the entries not yet in a file (`originate` checks them against the
blocks). Older rows keep NULL: they are matched by their exact hash, as before. The partial index holds only
returned entries of accounts written with leading zeros."""

from datetime import timedelta

from django.db import migrations, models
from django.utils import timezone

CHUNK = 2000


def _fill(apps, schema_editor):
    from vault import crypto

    alias = schema_editor.connection.alias
    Transaction = apps.get_model("transactions", "Transaction")
    AccountBlock = apps.get_model("transactions", "AccountBlock")
    rows = Transaction.objects.using(alias)
    since = timezone.now().date() - timedelta(days=181)
    read = rows.filter(
        models.Q(type="Debit", return_code__in=("R01", "R09"), effective_date__gte=since)
        | models.Q(status__in=("Pending", "HELD"), batch__isnull=True),
        account_number__isnull=False,
    )
    chunk = []
    for txn in read.only("pk", "account_number").order_by("pk").iterator(chunk_size=CHUNK):
        txn.unpadded_account_hash = crypto.unpadded_account_hash(txn.account_number or "")
        if txn.unpadded_account_hash is not None:
            chunk.append(txn)
        if len(chunk) == CHUNK:
            rows.bulk_update(chunk, ["unpadded_account_hash"])
            chunk = []
    rows.bulk_update(chunk, ["unpadded_account_hash"])

    blocks = list(AccountBlock.objects.using(alias).only("pk", "transaction_id"))
    numbers = dict(rows.filter(pk__in={block.transaction_id for block in blocks}).values_list("pk", "account_number"))
    for block in blocks:
        block.unpadded_account_hash = crypto.unpadded_account_hash(numbers.get(block.transaction_id) or "")
    AccountBlock.objects.using(alias).bulk_update(
        [block for block in blocks if block.unpadded_account_hash is not None], ["unpadded_account_hash"], batch_size=CHUNK
    )


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0005_payment_method_unpadded_account_hash"),
        ("transactions", "0030_trace_sequence"),
    ]

    operations = [
        migrations.AddField(
            model_name="accountblock",
            name="unpadded_account_hash",
            field=models.CharField(blank=True, max_length=64, null=True),
        ),
        migrations.AddField(
            model_name="transaction",
            name="unpadded_account_hash",
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.RunPython(_fill, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="transaction",
            index=models.Index(
                condition=models.Q(("return_code__isnull", False), ("unpadded_account_hash__isnull", False)),
                fields=["company", "unpadded_account_hash"],
                name="txn_company_unpadded_returned",
            ),
        ),
    ]
