from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client

from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from transactions.ach.operator_actions import transaction_acknowledge, transaction_reject, transaction_restore
from transactions.models import TransactionException, TransactionHold
from transactions.state import Actor, Caller
from vault.errors import Conflict

pytestmark = pytest.mark.django_db

OPERATOR = Actor(Caller.ADMIN, "user:operator")

AT = datetime(2026, 12, 7, 12, tzinfo=UTC)
LATER = datetime(2026, 12, 7, 13, tzinfo=UTC)


def test_reject_then_restore(company):
    txn = bank_txn(company)
    transaction_reject(txn=txn, actor=OPERATOR, reason="customer called to cancel", at=AT)
    txn.refresh_from_db()
    assert txn.status == "Rejected"
    assert (txn.exception.reject_reason, txn.exception.rejected_at) == ("customer called to cancel", AT)
    assert run("originate", "--at", MONDAY_MORNING)["transactions"] == 0

    transaction_restore(txn=txn, actor=OPERATOR, at=LATER)
    txn.refresh_from_db()
    assert txn.status == "Pending" and txn.exception.restored_at == LATER
    assert txn.exception.rejected_at == AT  # the history of the exception stays readable
    assert run("originate", "--at", MONDAY_MORNING)["transactions"] == 1


@pytest.mark.parametrize("status", ["Processing", "Settled", "Returned", "Voided", "Rejected"])
def test_only_unsent_transactions_can_be_rejected(company, status):
    txn = bank_txn(company, status=status)
    with pytest.raises(Conflict):
        transaction_reject(txn=txn, actor=OPERATOR, reason="x", at=AT)
    txn.refresh_from_db()
    assert txn.status == status


def test_restore_needs_a_rejected_transaction(company):
    txn = bank_txn(company)
    with pytest.raises(Conflict):
        transaction_restore(txn=txn, actor=OPERATOR, at=AT)
    assert not TransactionException.objects.exists()


def test_acknowledge_records_once(company):
    txn = bank_txn(company, status="Returned")
    assert transaction_acknowledge(txn=txn, actor=OPERATOR, at=AT) is True
    assert transaction_acknowledge(txn=txn, actor=OPERATOR, at=LATER) is False
    txn.refresh_from_db()
    assert txn.exception.acknowledged_at == AT
    assert txn.status == "Returned"


@pytest.fixture
def admin_client(db):
    user = factories.UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


def _post_action(client, action, txns, **extra):
    return client.post(
        "/admin/transactions/transaction/",
        {
            "action": action,
            "_selected_action": [str(txn.pk) for txn in txns],
            "post": "yes",
            "reason": "operator test",
            **extra,
        },
        follow=True,
    )


def test_admin_reject_action_with_a_reason(admin_client, company):
    pending, settled = bank_txn(company), bank_txn(company, status="Settled")
    response = _post_action(admin_client, "reject_transactions", [pending, settled], reason="fraud review")
    assert response.status_code == 200
    pending.refresh_from_db()
    settled.refresh_from_db()
    assert pending.status == "Rejected" and pending.exception.reject_reason == "fraud review"
    assert settled.status == "Settled"
    text = response.content.decode()
    assert "1 transaction(s) rejected." in text and "cannot be rejected" in text


def test_admin_restore_and_acknowledge_actions(admin_client, company):
    txn = bank_txn(company)
    _post_action(admin_client, "reject_transactions", [txn])
    txn.refresh_from_db()
    assert txn.exception.reject_reason == "operator test"
    _post_action(admin_client, "restore_transactions", [txn])
    _post_action(admin_client, "acknowledge_transactions", [txn])
    txn.refresh_from_db()
    assert txn.status == "Pending"
    assert txn.exception.restored_at is not None and txn.exception.acknowledged_at is not None


def test_admin_release_holds_action(admin_client, company):
    held = bank_txn(company, status="HELD")
    TransactionHold.objects.create(company=company, transaction=held, hold_code="AMT", hold_reason="over limit")
    response = _post_action(admin_client, "release_holds", [held])
    assert "1 transaction(s) released." in response.content.decode()
    held.refresh_from_db()
    assert held.status == "Pending" and held.hold.released_at is not None


def test_admin_actions_need_a_staff_login(company):
    txn = bank_txn(company)
    response = _post_action(Client(), "reject_transactions", [txn])
    assert "login" in response.redirect_chain[0][0]
    txn.refresh_from_db()
    assert txn.status == "Pending"


@pytest.mark.parametrize("page", ["batch", "settlement", "originationfile", "ingestionfile"])
def test_lifecycle_admin_pages_render(admin_client, company, page):
    bank_txn(company, account_number="987654321012")
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", "2026-12-07T22:00:01Z")
    changelist = admin_client.get(f"/admin/transactions/{page}/")
    assert changelist.status_code == 200
    from django.apps import apps

    model = apps.get_model("transactions", page)
    obj = model.objects.first()
    if obj is not None:
        detail = admin_client.get(f"/admin/transactions/{page}/{obj.pk}/change/")
        assert detail.status_code == 200
        assert "987654321012" not in detail.content.decode()
