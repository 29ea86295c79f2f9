"""A mandate's evidence is kept as the Fernet token of the file's bytes, no longer of its base64 text (security review
2026-12-07 M4: 9.3 MB a 5 MiB file, now 7). The column stays text (a token is text): only the field's class changes,
in the state alone, and each stored value is rewritten."""

import base64

from django.db import migrations

import vault.fields
from vault import crypto


def _as_bytes(apps, schema_editor):
    Mandate = apps.get_model("mandates", "Mandate")
    rows = Mandate.objects.exclude(evidence=None).values_list("pk", flat=True)
    with schema_editor.connection.cursor() as cursor:
        for pk in rows.iterator():
            cursor.execute("SELECT evidence FROM mandates_mandate WHERE id = %s", [pk])
            token = cursor.fetchone()[0]
            if token:
                raw = base64.b64decode(crypto.decrypt(token))
                cursor.execute(
                    "UPDATE mandates_mandate SET evidence = %s WHERE id = %s", [crypto.encrypt_bytes(raw), pk]
                )


class Migration(migrations.Migration):
    dependencies = [
        ("mandates", "0002_mandate_revoke_permission"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="mandate",
                    name="evidence",
                    field=vault.fields.EncryptedBytesField(blank=True, editable=False, null=True),
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(_as_bytes, migrations.RunPython.noop, elidable=False),
    ]
