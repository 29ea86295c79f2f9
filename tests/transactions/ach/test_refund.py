"""POST /transactions/{uuid}/refund (CONTRACT 12; ACH review d-6): a new credit of at most the original less earlier
refunds, PPD to a consumer or CCD to an organization with the description REFUND, linked to the original, which
stays Settled. Read back from the NACHA file."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP
from accounts.models import ActionGroup
from tests import factories
from tests.concurrency import at_once
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run, saved_method_txn
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def tuesday_after_monday():
    with time_machine.travel(datetime(2026, 12, 8, 15, tzinfo=UTC), tick=True):
        yield


def _refund(client, txn_uuid, body=None):
    return client.post(f"/transactions/{txn_uuid}/refund", body or {}, format="json")


def _settled(txn) -> Transaction:
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    txn.refresh_from_db()
    assert txn.status == "Settled"
    return txn


@pytest.fixture
def settled(method):
    return _settled(saved_method_txn(method, amount=4200))


def _sent() -> list[tuple[nacha_reader.ReadBatch, nacha_reader.ReadEntry]]:
    summary = run("originate", "--at", "2026-12-08T16:00:00Z")
    return [
        (batch, entry)
        for path in summary["files"]
        for batch in nacha_reader.read(Path(path).read_text()).batches
        for entry in batch.entries
    ]


def test_a_refund_is_a_new_ppd_credit_described_refund_linked_to_the_original(api_client, settled):
    response = _refund(api_client, settled.uuid)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert (data["type"], data["method"], data["amount"], data["status"]) == ("Credit", "ACH", 4200, "Pending")
    assert (data["standardEntryClassCode"], data["entryDescription"]) == ("PPD", "REFUND")
    assert data["refundOfUuid"] == str(settled.uuid) and data["reversalUuid"] is None
    settled.refresh_from_db()
    assert settled.status == "Settled" and settled.reversal_uuid is None
    ((batch, entry),) = _sent()
    assert (batch.sec, batch.description.strip()) == ("PPD", "REFUND")
    assert (entry.transaction_code, entry.amount, entry.account.strip()) == ("22", 4200, "000123456789")


def test_an_organizations_refund_is_ccd(api_client, company):
    customer = factories.CustomerFactory(
        company=company, account_holder_type="organization", first_name="", last_name="", company_name="Beta Corp"
    )
    method = factories.PaymentMethodFactory(customer=customer, account_number="000111000111")
    debit = _settled(saved_method_txn(method, amount=900, standard_entry_class_code="CCD"))

    assert _refund(api_client, debit.uuid).json()["data"]["standardEntryClassCode"] == "CCD"
    ((batch, _entry),) = _sent()
    assert batch.sec == "CCD"


def test_an_rcc_debit_is_refunded_by_an_ach_credit(api_client, company):
    debit = _settled(bank_txn(company, amount=700, method="RCC", standard_entry_class_code=""))

    data = _refund(api_client, debit.uuid).json()["data"]

    assert (data["method"], data["standardEntryClassCode"], data["entryDescription"]) == ("ACH", "PPD", "REFUND")


def test_refunds_add_up_to_the_original_at_most(api_client, settled):
    assert _refund(api_client, settled.uuid, {"amount": 1000}).status_code == 201
    assert _refund(api_client, settled.uuid, {"amount": 3000}).status_code == 201

    over = _refund(api_client, settled.uuid, {"amount": 201})

    assert over.status_code == 409, over.content
    error = over.json()["errors"][0]
    assert (error["field"], error["code"]) == ("amount", "refund_exceeds_original")
    assert "200" in error["message"]
    last = _refund(api_client, settled.uuid)  # the default is what is left
    assert last.json()["data"]["amount"] == 200
    assert _refund(api_client, settled.uuid).status_code == 409
    assert sum(settled.refunds.values_list("amount", flat=True)) == 4200


def test_a_voided_refund_is_refundable_again(api_client, settled):
    first = _refund(api_client, settled.uuid).json()["data"]
    assert api_client.post(f"/transactions/{first['uuid']}/void").status_code == 200
    assert _refund(api_client, settled.uuid).json()["data"]["amount"] == 4200


def _late_return(tmp_path, debit, code="R10"):
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(debit, code, {})], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return run("import_returns", str(path), "--at", "2026-12-08T14:00:00Z")


def test_a_late_return_voids_the_refunds_not_yet_sent(api_client, settled, tmp_path):
    first = _refund(api_client, settled.uuid, {"amount": 1000}).json()["data"]
    second = _refund(api_client, settled.uuid, {"amount": 500}).json()["data"]

    assert _late_return(tmp_path, settled)["returns"] == 1

    # The payer's bank already gave the whole debit back: neither refund may pay it again.
    for refund in (first, second):
        response = api_client.get(f"/transactions/{refund['uuid']}").json()["data"]
        assert response["status"] == "Voided"
        assert response["failureReason"] == "voided: the refunded debit was returned before this credit was sent"
    assert _sent() == []


def test_a_refund_already_sent_stays_as_it_is_when_the_debit_comes_back(api_client, settled, tmp_path):
    refund = _refund(api_client, settled.uuid).json()["data"]
    assert len(_sent()) == 1

    assert _late_return(tmp_path, settled)["returns"] == 1

    assert api_client.get(f"/transactions/{refund['uuid']}").json()["data"]["status"] == "Processing"


@pytest.mark.parametrize("amount", [0, -5, "100", 1.5, 10_000_000_000])  # null is "left out" (CONTRACT 4)
def test_an_amount_that_is_not_whole_positive_cents_is_400_naming_it(api_client, settled, amount):
    response = _refund(api_client, settled.uuid, {"amount": amount})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "amount"
    assert not Transaction.objects.filter(type="Credit").exists()


def test_an_unknown_field_is_400(api_client, settled):
    response = _refund(api_client, settled.uuid, {"reason": "duplicate"})
    assert (response.status_code, response.json()["errors"][0]["field"]) == (400, "reason")


@pytest.mark.parametrize(
    ("status", "txn_type"),
    [("Pending", "Debit"), ("Processing", "Debit"), ("Returned", "Debit"), ("Settled", "Credit")],
)
def test_only_a_settled_debit_is_refunded(api_client, company, status, txn_type):
    txn = bank_txn(company, status=status, type=txn_type)
    response = _refund(api_client, txn.uuid)
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "not_refundable"
    assert Transaction.objects.count() == 1


def test_another_companys_debit_is_404(other_api_client, settled):
    assert _refund(other_api_client, settled.uuid).status_code == 404
    assert _refund(other_api_client, uuid.uuid4()).status_code == 404


def test_unauthenticated_is_401(anonymous_client, settled):
    assert _refund(anonymous_client, settled.uuid).status_code == 401


def test_a_key_without_refund_transaction_is_403(company, settled):
    ActionGroup.objects.update_or_create(
        name=LIVE_API_KEY_GROUP, defaults={"actions": [a for a in ALL_ACTIONS if a != "RefundTransaction"]}
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company).authorization)
    assert _refund(client, settled.uuid).status_code == 403
    assert not Transaction.objects.filter(type="Credit").exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_refunds_never_exceed_the_original(company, issued_key, method):
    debit = _settled(saved_method_txn(method, amount=4200))

    def attempt() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
        return _refund(client, debit.uuid, {"amount": 1500}).status_code

    codes = at_once(attempt, 4)

    assert sorted(codes) == [201, 201, 409, 409]
    assert sum(debit.refunds.values_list("amount", flat=True)) == 3000


def test_roles_and_key_groups_that_could_reverse_may_refund():
    from accounts.models import Role

    assert "RefundTransaction" in ActionGroup.objects.get(name=LIVE_API_KEY_GROUP).actions
    assert "RefundTransaction" in Role.objects.get(name="admin").actions
    assert "RefundTransaction" not in Role.objects.get(name="support").actions


def test_a_refund_sent_twice_with_one_idempotency_key_is_made_once(api_client, settled):
    first = api_client.post(
        f"/transactions/{settled.uuid}/refund", {"amount": 100}, format="json", HTTP_IDEMPOTENCY_KEY="refund-1"
    )
    again = api_client.post(
        f"/transactions/{settled.uuid}/refund", {"amount": 100}, format="json", HTTP_IDEMPOTENCY_KEY="refund-1"
    )
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["data"]["uuid"] == first.json()["data"]["uuid"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert settled.refunds.count() == 1


def test_a_refund_with_a_used_idempotency_key_and_another_body_is_409_and_refunds_nothing_more(api_client, settled):
    url = f"/transactions/{settled.uuid}/refund"
    assert api_client.post(url, {"amount": 100}, format="json", HTTP_IDEMPOTENCY_KEY="refund-2").status_code == 201
    reused = api_client.post(url, {"amount": 200}, format="json", HTTP_IDEMPOTENCY_KEY="refund-2")
    assert reused.status_code == 409
    assert reused.json()["errors"][0]["field"] == "Idempotency-Key"
    assert [refund.amount for refund in settled.refunds.all()] == [100]
