"""A saved method's charge stores the method's own ciphertext of the account number (vault.fields.Sealed): the hot
path encrypts nothing, the value reads back the same, and anything new or changed is encrypted afresh."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.db import connection

from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def _raw_account_number(model, pk: int) -> str:
    table, column = model._meta.db_table, model._meta.get_field("account_number").column
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {quote(column)} FROM {quote(table)} WHERE id = %s", [pk])  # noqa: S608 - names only
        return cursor.fetchone()[0]


def test_a_saved_method_charge_keeps_the_methods_ciphertext(api_client, customer, saved_method):
    response = put_charge(api_client, saved_charge(customer, saved_method))
    assert response.status_code == 201
    txn = Transaction.objects.get(uuid=response.json()["data"]["uuid"])

    stored = _raw_account_number(Transaction, txn.pk)
    assert stored == _raw_account_number(type(saved_method), saved_method.pk)
    assert saved_method.account_number not in stored
    assert txn.account_number == saved_method.account_number


def test_a_one_off_charge_and_a_changed_value_are_encrypted_afresh(api_client, saved_method):
    details = bank_details(accountNumber=saved_method.account_number, routingNumber=saved_method.routing_number)
    response = put_charge(api_client, {"method": "ACH", "type": "Credit", "amount": 100, "paymentDetails": details})
    assert response.status_code == 201
    txn = Transaction.objects.get(uuid=response.json()["data"]["uuid"])
    assert _raw_account_number(Transaction, txn.pk) != _raw_account_number(type(saved_method), saved_method.pk)

    txn.account_number = txn.account_number[:-1] + "0"  # a plain str: encrypted on save
    txn.save(update_fields=["account_number"])
    txn.refresh_from_db()
    assert txn.account_number.endswith("0") and txn.account_number != saved_method.account_number


def test_the_nacha_file_debits_the_saved_methods_account(api_client, customer, saved_method, ordinary_banking_day):
    """The money moves from the right account: the entry `originate` writes, read back by an independent reader,
    carries the method's routing and account number, decrypted from the ciphertext the charge took over."""
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=4321))
    assert response.status_code == 201
    summary = run("originate", "--at", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))

    (path,) = summary["files"]
    (entry,) = [entry for batch in nacha_reader.read(Path(path).read_text()).batches for entry in batch.entries]
    assert (entry.routing, entry.account.strip(), entry.amount) == (
        saved_method.routing_number,
        saved_method.account_number,
        4321,
    )
