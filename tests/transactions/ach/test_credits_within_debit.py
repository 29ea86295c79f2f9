"""Credits never exceed the debit (CONTRACT 12, ACH review 2026-12-02 N1 and N11): a reversal is 409 refund_exists
while a refund of the debit is pending or sent, a refund is 409 after a reversal, the database refuses a credit that
would pay more than the debit, and a C04 name reaches the credits too. Read back from the NACHA files."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

from tests.concurrency import at_once
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run, saved_method_txn
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

TUESDAY_MORNING = "2026-12-08T16:00:00Z"


@pytest.fixture(autouse=True)
def tuesday_after_monday():
    """Asked on the Tuesday after Monday's settlement: inside the reversal's 5 banking days."""
    with time_machine.travel(datetime(2026, 12, 8, 15, tzinfo=UTC), tick=True):
        yield


def _settled(*txns: Transaction) -> None:
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    for txn in txns:
        txn.refresh_from_db()
        assert txn.status == "Settled"


def _refund(client, debit, amount=None):
    return client.post(
        f"/transactions/{debit.uuid}/refund", {} if amount is None else {"amount": amount}, format="json"
    )


def _reverse(client, debit):
    return client.post(f"/transactions/{debit.uuid}/reverse", {"reason": "duplicate"}, format="json")


def _sent(at: str = TUESDAY_MORNING) -> list[tuple[nacha_reader.ReadBatch, nacha_reader.ReadEntry]]:
    summary = run("originate", "--at", at)
    return [
        (batch, entry)
        for path in summary["files"]
        for batch in nacha_reader.read(Path(path).read_text()).batches
        for entry in batch.entries
    ]


def _import(tmp_path, entries, name="answers.ach"):
    path = tmp_path / name
    path.write_text(return_file_for(entries, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return run("import_returns", str(path), "--at", "2026-12-08T14:00:00Z")


def test_a_reversal_after_refunds_is_409_refund_exists_and_the_file_carries_the_refunds_only(api_client, method):
    # The review's out_20261204 sample: a $75.00 debit refunded 25.00 + 50.00, then reversed, paid out $150.00.
    debit = saved_method_txn(method, amount=7500)
    _settled(debit)
    assert _refund(api_client, debit, 2500).status_code == 201
    assert _refund(api_client, debit, 5000).status_code == 201

    response = _reverse(api_client, debit)

    assert response.status_code == 409, response.content
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == ("transactionUuid", "refund_exists")
    assert "void" in error["message"]
    debit.refresh_from_db()
    assert (debit.status, debit.reversal_uuid) == ("Settled", None)
    sent = _sent()
    assert sorted(entry.amount for _batch, entry in sent) == [2500, 5000]
    assert {batch.description.strip() for batch, _entry in sent} == {"REFUND"}


def test_a_reversal_after_a_refund_already_sent_is_409(api_client, method):
    # The sample's second case: refund 10.00 (sent), then a reversal of the whole $49.00.
    debit = saved_method_txn(method, amount=4900)
    _settled(debit)
    assert _refund(api_client, debit, 1000).status_code == 201
    assert len(_sent()) == 1

    response = _reverse(api_client, debit)

    assert (response.status_code, response.json()["errors"][0]["code"]) == (409, "refund_exists")
    assert response.json()["data"]["refundStatus"] == "Processing"
    assert _sent("2026-12-08T18:00:00Z") == []


def test_a_pending_refund_voided_first_lets_the_debit_be_reversed(api_client, method):
    debit = saved_method_txn(method, amount=4900)
    _settled(debit)
    refund = _refund(api_client, debit, 1000).json()["data"]
    assert _reverse(api_client, debit).status_code == 409
    assert api_client.post(f"/transactions/{refund['uuid']}/void").status_code == 200

    response = _reverse(api_client, debit)

    assert response.status_code == 201, response.content
    ((batch, entry),) = _sent()
    assert (batch.description.strip(), entry.amount) == ("REVERSAL", 4900)


def test_a_refund_after_a_reversal_is_409(api_client, method):
    debit = saved_method_txn(method, amount=4900)
    _settled(debit)
    assert _reverse(api_client, debit).status_code == 201

    response = _refund(api_client, debit, 100)

    assert (response.status_code, response.json()["errors"][0]["code"]) == (409, "not_refundable")
    assert not debit.refunds.exists()


def test_the_database_refuses_a_refund_beyond_the_debit(company):
    debit = bank_txn(company, amount=1000, status="Settled")
    bank_txn(company, type="Credit", amount=600, refund_of=debit)

    with pytest.raises(IntegrityError), transaction.atomic():
        bank_txn(company, type="Credit", amount=401, refund_of=debit)
    voided = bank_txn(company, type="Credit", amount=400, refund_of=debit)  # exactly the rest
    voided.status = "Voided"
    voided.save(update_fields=["status"])
    bank_txn(company, type="Credit", amount=400, refund_of=debit)
    with pytest.raises(IntegrityError), transaction.atomic():  # a voided refund cannot pay again on top
        Transaction.objects.filter(pk=voided.pk).update(status="Pending")


def test_the_database_refuses_a_reversal_credit_on_top_of_a_refund(company):
    debit = bank_txn(company, amount=1000, status="Settled")
    bank_txn(company, type="Credit", amount=1, refund_of=debit)
    credit_uuid = uuid.uuid4()
    Transaction.objects.filter(pk=debit.pk).update(status="Reversed", reversal_uuid=credit_uuid)

    with pytest.raises(IntegrityError), transaction.atomic():
        bank_txn(company, type="Credit", amount=1000, uuid=credit_uuid, reversal_uuid=debit.uuid)


@pytest.mark.parametrize("first", ["C04 then refund", "C04 then reversal"])
def test_a_c04_name_is_the_name_the_credits_go_out_in(api_client, method, tmp_path, first):
    # The review's out_20261223 sample: a refund made after a C04 still went out in the old name.
    debit = saved_method_txn(method, amount=3000)
    _settled(debit)
    assert _import(tmp_path, [(debit, "C04", {"name": "ADA K LOVELACE"})])["notices"] == 1

    response = _refund(api_client, debit) if first.endswith("refund") else _reverse(api_client, debit)

    assert response.status_code == 201, response.content
    assert response.json()["data"]["paymentDetails"]["name"] == "ADA K LOVELACE"
    ((_batch, entry),) = _sent()
    assert entry.name.strip() == "ADA K LOVELACE"


def test_a_c04_on_a_one_off_debit_names_its_refund(api_client, company, tmp_path):
    debit = bank_txn(company, amount=3100, name="JANE CONSUMER", account_number="000111222333")
    _settled(debit)
    assert _import(tmp_path, [(debit, "C04", {"name": "JANE Q CONSUMER"})])["notices"] == 1

    assert _refund(api_client, debit).status_code == 201

    ((_batch, entry),) = _sent()
    assert entry.name.strip() == "JANE Q CONSUMER"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_refund_and_a_reversal_at_once_never_both_go_through(company, issued_key, method):
    debits = [saved_method_txn(method, amount=4200 + n) for n in range(3)]
    _settled(*debits)

    for debit in debits:
        calls = iter([_refund, _reverse])

        def attempt(debit=debit, calls=calls) -> tuple[str, int]:
            call = next(calls)
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
            return call.__name__, call(client, debit).status_code

        results = dict(at_once(attempt, 2))

        assert sorted(results.values()) == [201, 409], results
        credits = Transaction.objects.filter(type="Credit", company=company)
        paid = sum(credits.filter(refund_of=debit).values_list("amount", flat=True)) + sum(
            credits.filter(reversal_uuid=debit.uuid).values_list("amount", flat=True)
        )
        assert paid == debit.amount
