from django.conf import settings
from django.db import migrations


def files_not_yet_accepted(apps, schema_editor):
    """From now on a file's entries settle only once the bank accepted it (CONTRACT 16, 2026-12-07): the files it
    has not answered yet, or not in time, hold their entries that have not settled (bank.state keeps the flag)."""
    if not settings.BANK_SENDS_ACKNOWLEDGEMENTS:
        return
    OriginationFile = apps.get_model("transactions", "OriginationFile")
    OriginationFile.objects.filter(bank_file__status__in=("transmitted", "unacknowledged")).update(awaiting_bank=True)


class Migration(migrations.Migration):
    dependencies = [("bank", "0002_files_awaiting_bank")]

    operations = [migrations.RunPython(files_not_yet_accepted, migrations.RunPython.noop, elidable=True)]
