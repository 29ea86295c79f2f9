"""PaymentMethod.account_number_hash: added nullable (no table rebuild, no default written), filled from each
method's decrypted number, then made required with a check that it is never empty."""

from django.db import migrations, models


def _fill(apps, schema_editor):
    from vault import crypto

    PaymentMethod = apps.get_model("payments", "PaymentMethod")
    methods = PaymentMethod.objects.using(schema_editor.connection.alias).only("pk", "account_number")
    chunk = []
    for method in methods.order_by("pk").iterator(chunk_size=2000):
        method.account_number_hash = crypto.account_number_hash(method.account_number)
        chunk.append(method)
        if len(chunk) == 2000:
            PaymentMethod.objects.using(schema_editor.connection.alias).bulk_update(chunk, ["account_number_hash"])
            chunk = []
    PaymentMethod.objects.using(schema_editor.connection.alias).bulk_update(chunk, ["account_number_hash"])


class Migration(migrations.Migration):
    dependencies = [("payments", "0003_payment_method_corrected_name")]

    operations = [
        migrations.AddField(
            model_name="paymentmethod",
            name="account_number_hash",
            field=models.CharField(
                editable=False, help_text="Keyed hash of the account number.", max_length=64, null=True
            ),
        ),
        migrations.RunPython(_fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="paymentmethod",
            name="account_number_hash",
            field=models.CharField(editable=False, help_text="Keyed hash of the account number.", max_length=64),
        ),
        migrations.AddConstraint(
            model_name="paymentmethod",
            constraint=models.CheckConstraint(
                condition=models.Q(("account_number_hash", ""), _negated=True),
                name="payment_method_account_number_hash_set",
            ),
        ),
    ]
