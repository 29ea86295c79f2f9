"""The flush that ends a transactional test (Django's TransactionTestCase; on PostgreSQL tests/conftest.py deletes
the rows instead of truncating) leaves every table empty, whatever triggers and foreign keys guard the rows: the next
test starts from an empty database."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command

from mandates.models import Mandate
from tests import factories
from tests.mandates.conftest import mandate_created
from tests.mandates.test_charges import debit
from transactions.models import Transaction


@pytest.mark.django_db(transaction=True)
def test_the_flush_after_a_transactional_test_empties_every_table(company, api_client):
    account = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    mandate = mandate_created(api_client, account)["mandateUuid"]  # retained: its trigger refuses a DELETE
    assert debit(api_client, account, mandateUuid=mandate).status_code == 201  # trigger-kept counts and volumes
    assert Mandate.objects.exists() and Transaction.objects.exists()

    # As TransactionTestCase calls it, less the post_migrate that writes the content types and permissions again.
    call_command("flush", interactive=False, verbosity=0, reset_sequences=False, inhibit_post_migrate=True)

    left = {
        model._meta.db_table: model._base_manager.count()
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed and not model._meta.proxy
    }
    kept = {ContentType._meta.db_table, Permission._meta.db_table}
    assert {table: rows for table, rows in left.items() if rows and table not in kept} == {}
