"""The `ach_file.*` events tell each merchant about its own entries in a file only, with the counts and totals an
operator reconciles by (debits, credits, prenotes), and never the amounts of micro-deposits, which are the payer's
secret: they are counted apart and left out of the totals."""

from __future__ import annotations

import pytest

from events.models import Event
from tests import factories
from tests.bank.conftest import command
from tests.bank.test_transmit import TRANSMIT_AT
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from tests.transactions.conftest import put_charge, saved_charge

pytestmark = pytest.mark.django_db


@pytest.fixture
def saved_method(company):
    customer = factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")
    return factories.PaymentMethodFactory(customer=customer, account_number="000123456789", account_type="Savings")


def _validate(client, method, kind: str) -> None:
    url = f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/validate"
    assert client.post(url, {"method": kind}, format="json").status_code == 202


def test_each_company_hears_of_its_own_entries_with_micro_deposit_amounts_left_out(
    monday_early, bank, api_client, saved_method, other_company
):
    assert put_charge(api_client, saved_charge(saved_method.customer, saved_method, amount=4321)).status_code == 201
    _validate(api_client, saved_method, "microdeposits")
    bank_txn(other_company, amount=999_999)
    bank_txn(other_company, type="Credit", amount=5, standard_entry_class_code="PPD")
    run("originate", "--at", MONDAY_MORNING)
    command("transmit_files", "--at", TRANSMIT_AT)
    ours = Event.objects.get(type="ach_file.transmitted", company=saved_method.company)
    theirs = Event.objects.get(type="ach_file.transmitted", company=other_company)
    assert ours.object_uuid == theirs.object_uuid  # one file, carrying both companies' batches
    assert ours.data["entries"] == {
        "entryCount": 4,
        "debitCount": 1,
        "debitTotal": 4321,
        "creditCount": 0,
        "creditTotal": 0,
        "prenoteCount": 0,
        "accountVerificationCount": 3,
    }
    assert theirs.data["entries"]["debitTotal"] == 999_999 and theirs.data["entries"]["creditCount"] == 1
    assert ours.data["status"] == "transmitted" and ours.data["transmittedAt"] == "2026-12-07T15:30:00.000000Z"


def test_a_prenote_is_counted_as_a_prenote(monday_early, bank, api_client, saved_method):
    _validate(api_client, saved_method, "prenote")
    run("originate", "--at", MONDAY_MORNING)
    command("transmit_files", "--at", TRANSMIT_AT)
    event = Event.objects.get(type="ach_file.transmitted")
    assert event.data["entries"]["prenoteCount"] == 1
    assert (event.data["entries"]["debitCount"], event.data["entries"]["creditCount"]) == (0, 0)
