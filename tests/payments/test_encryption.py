"""Account numbers at rest: never in clear in a raw row; key rotation re-encrypts everything (CONTRACT 1, 5)."""

from __future__ import annotations

import io
import json

import pytest
from cryptography.fernet import Fernet
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import connection

from payments.models import PaymentMethod
from payments.rotation import ENCRYPTED_COLUMNS
from tests.factories import PaymentMethodFactory, TransactionFactory
from tests.payments.conftest import method_body
from transactions.models import Transaction
from vault.fields import EncryptedBytesField, EncryptedTextField

pytestmark = pytest.mark.django_db

ACCOUNT = "987654321012"


def _raw_rows(table: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - a model's table
        return cursor.fetchall()


def test_raw_rows_hold_no_clear_account_number(api_client, customer):
    body = method_body(customer, accountNumber=ACCOUNT)
    response = api_client.post("/customers/payment-methods", body, format="json")
    assert response.status_code == 201
    rows = _raw_rows(PaymentMethod._meta.db_table)
    assert len(rows) == 1
    assert not any(ACCOUNT in str(cell) for cell in rows[0])
    assert PaymentMethod.objects.get().account_number == ACCOUNT  # but it reads back through the field


def test_every_encrypted_column_is_rotated():
    declared = {
        (model._meta.label, field.name)
        for model in apps.get_models()
        for field in model._meta.get_fields()
        if isinstance(field, EncryptedTextField | EncryptedBytesField)
    }
    assert declared == set(ENCRYPTED_COLUMNS.values())


def _rotate() -> dict:
    out = io.StringIO()
    call_command("rotate_encryption_keys", "--chunk-size", "2", stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


NO_WEBHOOK_SECRETS = {"webhookSecrets": 0, "webhookPreviousSecrets": 0, "changeNotices": 0, "mandateEvidence": 0}


def _read_all() -> tuple[list[str], list[str]]:
    return (
        sorted(PaymentMethod.objects.values_list("account_number", flat=True)),
        sorted(Transaction.objects.values_list("account_number", flat=True)),
    )


def test_rotation_moves_everything_to_the_new_key(settings, company):
    old_keys = list(settings.FIELD_ENCRYPTION_KEYS)
    methods = [PaymentMethodFactory(customer__company=company, account_number=f"44440000{i}") for i in range(5)]
    transactions = [TransactionFactory(company=company, account_number=f"55550000{i}") for i in range(3)]
    before = _read_all()
    assert before == (sorted(m.account_number for m in methods), sorted(t.account_number for t in transactions))
    raw_before = _raw_rows(PaymentMethod._meta.db_table)

    new_key = Fernet.generate_key().decode()
    settings.FIELD_ENCRYPTION_KEYS = [new_key, *old_keys]
    assert _rotate() == {"paymentMethods": 5, "transactions": 3, **NO_WEBHOOK_SECRETS}
    assert _read_all() == before
    assert _raw_rows(PaymentMethod._meta.db_table) != raw_before

    settings.FIELD_ENCRYPTION_KEYS = [new_key]
    assert _read_all() == before  # the new key alone reads everything

    settings.FIELD_ENCRYPTION_KEYS = old_keys
    with pytest.raises(ValueError, match="cannot be read"):
        _read_all()  # the old key alone can no longer read it


def test_rotation_is_idempotent(settings, company):
    PaymentMethodFactory(customer__company=company)
    settings.FIELD_ENCRYPTION_KEYS = [Fernet.generate_key().decode(), *settings.FIELD_ENCRYPTION_KEYS]
    assert _rotate() == {"paymentMethods": 1, "transactions": 0, **NO_WEBHOOK_SECRETS}
    raw = _raw_rows(PaymentMethod._meta.db_table)
    assert _rotate() == {"paymentMethods": 0, "transactions": 0, **NO_WEBHOOK_SECRETS}
    assert _raw_rows(PaymentMethod._meta.db_table) == raw


def test_rotation_refuses_a_value_no_key_reads(settings, company):
    method = PaymentMethodFactory(customer__company=company, account_number="77770000")
    settings.FIELD_ENCRYPTION_KEYS = [Fernet.generate_key().decode()]
    with pytest.raises(CommandError) as excinfo:
        _rotate()
    assert f"id={method.pk}" in str(excinfo.value)
    assert "77770000" not in str(excinfo.value)
