"""The admin's "Simulate" action: the bank's answer for a sandbox company's entry, never for a live one."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from tests import factories
from tests.transactions.sandbox.conftest import run
from transactions.models import ChangeNotice, Status, Transaction

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/transactions/transaction/"


def _operator(*companies, simulate: bool = True) -> Client:
    user = factories.UserFactory(is_staff=True)
    codenames = ["view_transaction", *(["simulate_sandbox"] if simulate else [])]
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    for company in companies:
        factories.membership(user, company, "support")
    client = Client()
    client.force_login(user)
    return client


def _sent(company) -> Transaction:
    txn = factories.TransactionFactory(company=company, account_number="123456789")
    run("originate")
    txn.refresh_from_db()
    assert txn.status == Status.PROCESSING
    return txn


def _simulate(client: Client, txn: Transaction, code: str):
    return client.post(
        CHANGELIST,
        {"action": "simulate_sandbox", "_selected_action": [txn.pk], "sandbox_code": code},
        follow=True,
    )


def test_simulate_returns_a_sandbox_entry_with_the_code(sandbox_company):
    txn = _sent(sandbox_company)
    response = _simulate(_operator(sandbox_company), txn, "r03")
    assert "1 transaction(s) simulated" in response.content.decode()
    txn.refresh_from_db()
    assert (txn.status, txn.return_code) == (Status.RETURNED, "R03")


def test_simulate_sends_a_notice_of_change(sandbox_company):
    txn = _sent(sandbox_company)
    _simulate(_operator(sandbox_company), txn, "C01")
    assert ChangeNotice.objects.get(transaction=txn).change_code == "C01"


def test_simulate_refuses_a_live_company_entry(company):
    txn = _sent(company)
    response = _simulate(_operator(company), txn, "R01")
    assert "Not changed" in response.content.decode()
    txn.refresh_from_db()
    assert txn.status == Status.PROCESSING and txn.return_code is None


def test_simulate_needs_its_own_permission(sandbox_company):
    txn = _sent(sandbox_company)
    client = _operator(sandbox_company, simulate=False)
    assert "simulate_sandbox" not in client.get(CHANGELIST).content.decode()
    _simulate(client, txn, "R01")
    txn.refresh_from_db()
    assert txn.status == Status.PROCESSING
