"""The sandbox is walled off from bank files (CONTRACT 13, security review 2026-12-02 C1/C2): its simulations act
on the transaction they name, never through the matcher of bank files, so a sandbox key can never reach a live
company's entry or saved account, even when both entries carry the same trace number."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import time_machine

from tests import factories
from tests.transactions.ach.conftest import saved_method_txn
from tests.transactions.sandbox.conftest import charge, ok, run, saved_account, status_of
from transactions.models import ChangeNotice, Transaction

pytestmark = pytest.mark.django_db

DAY_ONE, DAY_TWO = "2026-12-03T15:00:00Z", "2026-12-04T15:00:00Z"
LIVE_ACCOUNT = "444455556666"


@pytest.fixture(autouse=True)
def _on_the_day_the_probes_ran():
    """The charges are made on Wednesday 2026-12-02, as the review ran its probes, so the files of the next two days
    carry them (made on a later day, they would not be due in those files)."""
    with time_machine.travel(datetime(2026, 12, 2, 15, tzinfo=UTC), tick=True):
        yield


def _live_entry_with_the_trace_of(sandbox_txn: Transaction, company, *, amount: int) -> Transaction:
    """A live company's debit sent the next day, given the sandbox entry's trace number (forced: the two spaces
    share no number any more)."""
    customer = factories.CustomerFactory(company=company, first_name="Live", last_name="Payer")
    method = factories.PaymentMethodFactory(customer=customer, account_number=LIVE_ACCOUNT, routing_number="021000021")
    live = saved_method_txn(method, amount=amount, effective_date=sandbox_txn.effective_date)
    run("originate", "--at", DAY_TWO)
    Transaction.objects.filter(pk=live.pk).update(trace_number=sandbox_txn.trace_number)
    live.refresh_from_db()
    assert live.status == "Processing" and live.trace_date != sandbox_txn.trace_date
    return live


def _sandbox_entry(sandbox_client, account: str, *, amount: int) -> tuple[Transaction, str, str]:
    customer_uuid, method_uuid = saved_account(sandbox_client, account)
    txn = charge(sandbox_client, customer_uuid, method_uuid, amount=amount)
    run("originate", "--at", DAY_ONE)  # the ordinary cron, as the review ran it
    return Transaction.objects.get(uuid=txn["uuid"]), customer_uuid, method_uuid


def test_a_sandbox_notice_simulation_never_rewrites_a_live_companys_account(sandbox_client, company):
    """Probe S1: a sandbox key's notice-of-change rewrote a live method to a number of its choosing."""
    sandbox_txn, customer_uuid, method_uuid = _sandbox_entry(sandbox_client, "123400001111", amount=1234)
    live = _live_entry_with_the_trace_of(sandbox_txn, company, amount=98765)

    ok(
        sandbox_client.post(
            f"/sandbox/transactions/{sandbox_txn.uuid}/notice-of-change",
            {"code": "C01", "correctedData": {"accountNumber": "999900001111"}},
            format="json",
        )
    )

    live.payment_method.refresh_from_db()
    assert live.payment_method.account_number == LIVE_ACCOUNT
    assert not ChangeNotice.objects.filter(transaction=live).exists()
    method = ok(sandbox_client.get(f"/customers/{customer_uuid}/payment-methods/{method_uuid}"))
    assert method["accountNumber"] == "999900001111"


def test_a_sandbox_return_simulation_returns_its_own_entry_not_a_live_one_of_equal_amount(sandbox_client, company):
    sandbox_txn, _, _ = _sandbox_entry(sandbox_client, "123400001111", amount=2000)
    live = _live_entry_with_the_trace_of(sandbox_txn, company, amount=2000)

    ok(sandbox_client.post(f"/sandbox/transactions/{sandbox_txn.uuid}/return", {"code": "R01"}, format="json"))

    assert status_of(sandbox_client, str(sandbox_txn.uuid))["status"] == "Returned"
    live.refresh_from_db()
    assert live.status == "Processing"


def test_a_sandbox_magic_notice_at_the_ordinary_settle_never_corrects_a_live_method(sandbox_client, company):
    """Probe S2: a sandbox entry to 00066601 made `settle` rewrite a live method to the sandbox's canned account."""
    sandbox_txn, customer_uuid, method_uuid = _sandbox_entry(sandbox_client, "00066601", amount=2500)
    live = _live_entry_with_the_trace_of(sandbox_txn, company, amount=4321)

    settled = run("settle", "--at", "2026-12-04T23:30:00Z")

    assert settled["sandbox"]["notices"] == 1
    live.payment_method.refresh_from_db()
    assert live.payment_method.account_number == LIVE_ACCOUNT
    method = ok(sandbox_client.get(f"/customers/{customer_uuid}/payment-methods/{method_uuid}"))
    assert method["accountNumber"] == "000123456789"
