"""What an Idempotency-Key keeps (review H1): a keyed HMAC of the body with card and account numbers keyed-hashed
and the cvv left out, for 24 hours. Nobody holding the database can test a guessed PAN, CVV or account number."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from itertools import product

import pytest
from django.db import connection
from django.utils import timezone

from idempotency.models import IdempotencyRecord
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import VISA, bank_details, card_details, put_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

CVV = "737"
ACCOUNT = "000987654321"


def _card_body(**details) -> dict:
    return {"method": "CRD", "type": "Debit", "amount": 2500, "paymentDetails": card_details(**{"cvv": CVV, **details})}


def _stored_text() -> str:
    """Every value of every row of every table, as the database holds it (ciphertext stays ciphertext)."""
    values = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")  # noqa: S608 - table names only
            values.extend(str(value) for row in cursor.fetchall() for value in row)
    return "\n".join(values)


def _unkeyed_digests(body: dict) -> set[str]:
    texts = {
        json.dumps(body, sort_keys=True, separators=(",", ":")),
        json.dumps(body, sort_keys=True),
        json.dumps(body, separators=(",", ":")),
        json.dumps(body),
    }
    secrets = [body["paymentDetails"].get(name, "") for name in ("cardNumber", "cvv", "accountNumber")]
    texts.update(value for value in secrets if value)
    return {algorithm(text.encode()).hexdigest() for text in texts for algorithm in (hashlib.sha256, hashlib.md5)}


@pytest.mark.parametrize(
    "body",
    [
        _card_body(),
        {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details(accountNumber=ACCOUNT)},
    ],
)
def test_no_stored_value_is_a_secret_or_an_unkeyed_hash_of_one(api_client, body):
    response = put_charge(api_client, body, HTTP_IDEMPOTENCY_KEY="order-1")
    assert response.status_code == 201, response.content
    stored = _stored_text()
    assert IdempotencyRecord.objects.get().request_hash in stored
    for digest in _unkeyed_digests(body):
        assert digest not in stored
    for secret in (VISA, ACCOUNT):
        if secret in json.dumps(body):
            assert secret not in stored


def test_the_cvv_cannot_be_recovered_by_guessing(api_client):
    """The review's probe: with the stored first six, last four, expiry, name and amount, try every CVV."""
    assert put_charge(api_client, _card_body(), HTTP_IDEMPOTENCY_KEY="order-1").status_code == 201
    record, txn = IdempotencyRecord.objects.get(), Transaction.objects.get()
    for cvv, separators in product(range(1000), [(",", ":"), (", ", ": ")]):
        guess = {
            "method": txn.method,
            "type": txn.type,
            "amount": txn.amount,
            "paymentDetails": {
                "name": txn.name,
                "cardNumber": VISA,
                "expirationDate": txn.card_expiration,
                "cvv": f"{cvv:03d}",
            },
        }
        digest = hashlib.sha256(json.dumps(guess, sort_keys=True, separators=separators).encode()).hexdigest()
        assert digest != record.request_hash


def test_the_fingerprint_leaves_the_cvv_out_and_keeps_the_card_number(api_client):
    first = put_charge(api_client, _card_body(), HTTP_IDEMPOTENCY_KEY="order-1")
    other_cvv = put_charge(api_client, _card_body(cvv="999"), HTTP_IDEMPOTENCY_KEY="order-1")
    assert other_cvv.status_code == 201 and other_cvv.headers["Idempotent-Replayed"] == "true"
    assert other_cvv.json() == first.json()
    other_card = put_charge(api_client, _card_body(cardNumber="5555555555554444"), HTTP_IDEMPOTENCY_KEY="order-1")
    assert other_card.status_code == 409, other_card.content
    assert Transaction.objects.count() == 1


def test_the_fingerprint_is_keyed_by_the_server_secret(api_client, settings):
    put_charge(api_client, _card_body(), HTTP_IDEMPOTENCY_KEY="order-1")
    settings.IDEMPOTENCY_HASH_KEY = "another-server-secret-of-32-characters-or-more"
    put_charge(api_client, _card_body(), HTTP_IDEMPOTENCY_KEY="order-2")
    first, second = IdempotencyRecord.objects.order_by("id").values_list("request_hash", flat=True)
    assert first != second


def test_purge_expired_deletes_records_past_24_hours_and_keeps_the_rest(api_client):
    for key in ("old", "fresh"):
        assert put_charge(api_client, _card_body(), HTTP_IDEMPOTENCY_KEY=key).status_code == 201
    IdempotencyRecord.objects.filter(key="old").update(created_at=timezone.now() - timedelta(hours=24, seconds=1))
    assert run("purge_expired") == {"idempotencyRecords": 1}
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["fresh"]
    assert Transaction.objects.count() == 2  # the charges themselves stay
    assert run("purge_expired") == {"idempotencyRecords": 0}
