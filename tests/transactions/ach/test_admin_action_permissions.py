"""H2: the operator actions of the transaction admin (release hold, reject, restore, acknowledge) need their own
model permission. A staff user of the company holding every view_* and change_* permission but not the action's
permission is neither offered the action nor able to run it by posting it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from tests import factories
from tests.transactions.ach.conftest import bank_txn
from transactions.ach.operator_actions import transaction_reject
from transactions.models import Transaction, TransactionHold
from transactions.state import Actor, Caller

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/transactions/transaction/"
AT = datetime(2026, 12, 7, 12, tzinfo=UTC)


def _held(company) -> Transaction:
    txn = bank_txn(company, status="HELD", amount=5_000_000)
    TransactionHold.objects.create(company=company, transaction=txn, hold_code="AMT", hold_reason="over limit")
    return txn


def _rejected(company) -> Transaction:
    txn = bank_txn(company)
    transaction_reject(txn=txn, reason="fraud review", actor=Actor(Caller.ADMIN, "user:operator"), at=AT)
    txn.refresh_from_db()
    return txn


def _state(txn: Transaction) -> tuple:
    txn.refresh_from_db()
    exception = getattr(txn, "exception", None)
    return txn.status, exception.acknowledged_at if exception else None


# (admin action, the permission it needs, a transaction it applies to)
ACTIONS = [
    ("release_holds", "release_hold", _held),
    ("reject_transactions", "reject_transaction", bank_txn),
    ("restore_transactions", "restore_transaction", _rejected),
    ("acknowledge_transactions", "acknowledge_exception", _rejected),
]


def _staff_client(company, *extra_codenames: str) -> Client:
    user = factories.UserFactory(is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__regex=r"^(view|change)_"))
    user.user_permissions.add(*Permission.objects.filter(codename__in=extra_codenames))
    factories.membership(user, company, "support")
    client = Client()
    client.force_login(user)
    return client


def _post(client: Client, action: str, txn: Transaction):
    return client.post(
        CHANGELIST, {"action": action, "_selected_action": [str(txn.pk)], "post": "yes", "reason": "test"}, follow=True
    )


@pytest.mark.parametrize(("action", "codename", "make"), ACTIONS, ids=[a[0] for a in ACTIONS])
def test_view_and_change_staff_without_the_action_permission_cannot_run_it(company, action, codename, make):
    txn = make(company)
    before = _state(txn)
    client = _staff_client(company)
    page = client.get(CHANGELIST)
    assert page.status_code == 200
    assert f'value="{action}"' not in page.content.decode()
    _post(client, action, txn)
    assert _state(txn) == before


@pytest.mark.parametrize(("action", "codename", "make"), ACTIONS, ids=[a[0] for a in ACTIONS])
def test_staff_holding_the_action_permission_runs_it(company, action, codename, make):
    txn = make(company)
    before = _state(txn)
    client = _staff_client(company, codename)
    assert f'value="{action}"' in client.get(CHANGELIST).content.decode()
    response = _post(client, action, txn)
    assert response.status_code == 200
    assert _state(txn) != before


def test_one_action_permission_does_not_grant_another(company):
    held = _held(company)
    client = _staff_client(company, "reject_transaction")
    _post(client, "release_holds", held)
    assert _state(held)[0] == "HELD"
