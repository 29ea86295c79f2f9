from django.db import migrations


def files_the_bank_has_not_taken(apps, schema_editor):
    """The files whose entries stop settling with transactions 0034: not yet transmitted, rejected and not sent
    again, or sent again after a rejection and not yet acknowledged (bank.state keeps the flag from now on)."""
    OriginationFile = apps.get_model("transactions", "OriginationFile")
    OriginationFile.objects.filter(bank_file__status="pending").update(awaiting_bank=True)
    OriginationFile.objects.filter(bank_file__status="rejected", bank_file__resent_as__isnull=True).update(
        awaiting_bank=True
    )
    OriginationFile.objects.filter(
        bank_file__status__in=("transmitted", "unacknowledged"), bank_file__resent_from__isnull=False
    ).update(awaiting_bank=True)


class Migration(migrations.Migration):
    dependencies = [
        ("bank", "0001_initial"),
        ("transactions", "0034_origination_file_awaiting_bank"),
    ]

    operations = [migrations.RunPython(files_the_bank_has_not_taken, migrations.RunPython.noop, elidable=True)]
