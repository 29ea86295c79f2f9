"""Reference data (default roles, the live API-key action group) and the database cache table."""
from django.core.management import call_command
from django.db import migrations

DEFAULT_ROLES = {
    "admin": [
        "CreateCustomer", "GetCustomer", "ListCustomers", "UpdateCustomer", "ManagePaymentMethods",
        "ViewPaymentMethods", "CreateTransaction", "ViewTransactions", "ViewReports",
    ],
    "support": [
        "GetCustomer", "ListCustomers", "UpdateCustomer", "ViewPaymentMethods", "ViewTransactions", "ViewReports",
    ],
    "reporting": ["ViewReports", "ViewTransactions"],
}


def seed(apps, schema_editor):
    Role = apps.get_model("accounts", "Role")
    ActionGroup = apps.get_model("accounts", "ActionGroup")
    for name, actions in DEFAULT_ROLES.items():
        Role.objects.get_or_create(name=name, defaults={"actions": actions})
    ActionGroup.objects.get_or_create(name="live-api-key", defaults={"actions": DEFAULT_ROLES["admin"]})


def create_cache_table(apps, schema_editor):
    # Login throttle counters live in the database cache unless CACHE_URL names Redis.
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.RunPython(seed, migrations.RunPython.noop),
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
