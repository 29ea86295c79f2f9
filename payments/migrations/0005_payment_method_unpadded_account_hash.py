"""PaymentMethod.unpadded_account_hash (vault.crypto.unpadded_account_hash): the keyed hash of the account number
without its leading zeros, set only when it has some, so that the debit rules (CONTRACT 12: re-initiation, account
blocks) see 088880001 and 88880001 as one account. Added nullable (no table rebuild, no default written) and filled
from each method's decrypted number."""

from django.db import migrations, models


def _fill(apps, schema_editor):
    from vault import crypto

    PaymentMethod = apps.get_model("payments", "PaymentMethod")
    methods = PaymentMethod.objects.using(schema_editor.connection.alias)
    chunk = []
    for method in methods.only("pk", "account_number").order_by("pk").iterator(chunk_size=2000):
        method.unpadded_account_hash = crypto.unpadded_account_hash(method.account_number)
        if method.unpadded_account_hash is not None:
            chunk.append(method)
        if len(chunk) == 2000:
            methods.bulk_update(chunk, ["unpadded_account_hash"])
            chunk = []
    methods.bulk_update(chunk, ["unpadded_account_hash"])


class Migration(migrations.Migration):
    dependencies = [("payments", "0004_payment_method_account_number_hash")]

    operations = [
        migrations.AddField(
            model_name="paymentmethod",
            name="unpadded_account_hash",
            field=models.CharField(blank=True, editable=False, max_length=64, null=True),
        ),
        migrations.RunPython(_fill, migrations.RunPython.noop),
    ]
