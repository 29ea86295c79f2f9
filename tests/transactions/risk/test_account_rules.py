"""Re-initiation and blocked accounts keyed on the account (CONTRACT 12; ACH review d-7): after R01/R09 a debit to
the account again is 409 reinitiation_requires_retry, after R02/R03/... every debit to the account is 409
account_blocked until an operator lifts it, for saved methods and one-off paymentDetails alike."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.contrib.auth.models import Permission
from django.db import IntegrityError, transaction
from django.utils import timezone

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, run, saved_method_txn
from transactions import calendar
from transactions.models import AccountBlock, RiskAction, Transaction
from transactions.return_codes import ACCOUNT_BLOCK_CODES
from transactions.sandbox.bank_files import return_file_for
from vault import crypto

# The returns are written at fixed instants of 2026-12-08 and the new debits at the clock's time: the 180 days of
# re-initiation count between them, so the clock is pinned to that day.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

RETURN_TIME = "2026-12-08T14:00:00Z"
ACCOUNT, ROUTING = "000123456789", "021000021"
ONE_OFF = {"name": "Ada Lovelace", "accountType": "Checking", "accountNumber": ACCOUNT, "routingNumber": ROUTING}


@pytest.fixture
def method(company):
    customer = factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")
    return factories.PaymentMethodFactory(customer=customer, account_number=ACCOUNT, routing_number=ROUTING)


def returned(method, code: str, tmp_path, *, amount: int = 4200) -> Transaction:
    """A saved-method debit sent in Monday's file and returned with `code` by the RDFI's file."""
    txn = saved_method_txn(method, amount=amount)
    run("originate", "--at", MONDAY_MORNING)
    txn.refresh_from_db()
    path = tmp_path / f"returns-{txn.pk}.ach"
    path.write_text(return_file_for([(txn, code, {})], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    assert run("import_returns", str(path), "--at", RETURN_TIME)["returns"] == 1
    return txn


def charge(client, *, method=None, amount: int = 4200, type: str = "Debit", details=ONE_OFF):
    body = {"method": "ACH", "type": type, "amount": amount, "paymentDetails": details}
    if type == "Credit":
        body["standardEntryClassCode"] = "PPD"
    if method is not None:
        body |= {"customerUuid": str(method.customer.uuid), "paymentMethodUuid": str(method.uuid)}
    return client.put("/transactions", body, format="json")


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == "error" and body["errors"][0]["code"] == code
    return body


# Re-initiation


@pytest.mark.parametrize("code", ["R01", "R09"])
@pytest.mark.parametrize("saved", [True, False], ids=["saved-method", "one-off"])
def test_the_same_debit_again_after_r01_or_r09_is_409_naming_the_returned_one(
    api_client, method, tmp_path, code, saved
):
    first = returned(method, code, tmp_path)
    count = Transaction.objects.count()

    body = refused(charge(api_client, method=method if saved else None), 409, "reinitiation_requires_retry")

    assert body["data"]["transactionUuid"] == str(first.uuid)
    assert body["data"]["returnCode"] == code
    assert f"/transactions/{first.uuid}/retry" in body["message"]
    assert body["errors"][0]["field"] == ("paymentMethodUuid" if saved else "paymentDetails.accountNumber")
    assert Transaction.objects.count() == count


def test_the_retry_route_stays_the_way_and_counts_its_two_presentments(api_client, method, tmp_path):
    first = returned(method, "R01", tmp_path)
    refused(charge(api_client, method=method), 409, "reinitiation_requires_retry")

    response = api_client.post(f"/transactions/{first.uuid}/retry")

    assert response.status_code == 201, response.content
    assert Transaction.objects.get(uuid=response.json()["data"]["uuid"]).retry_of == first
    # Re-PUTting the charge cannot make a third presentment either.
    refused(charge(api_client, method=method), 409, "reinitiation_requires_retry")


@pytest.mark.parametrize(
    "change",
    [
        {"type": "Credit"},
        {"details": ONE_OFF | {"accountNumber": "000999888777"}},
        {"details": ONE_OFF | {"routingNumber": "011000015"}},
    ],
    ids=["credit", "other-account", "other-routing"],
)
def test_another_direction_or_account_is_a_new_charge(api_client, method, tmp_path, change):
    # Another amount is no way past (CONTRACT 12, 2026-12-02): tests/transactions/risk/test_reinitiation_by_account.py.
    returned(method, "R01", tmp_path)
    assert charge(api_client, **change).status_code == 201


def test_other_return_codes_leave_the_same_debit_alone(api_client, method, tmp_path):
    returned(method, "R06", tmp_path)  # returned per ODFI request: neither re-initiation nor a block
    assert charge(api_client, method=method).status_code == 201


def test_after_180_days_the_same_debit_is_a_new_charge(api_client, method, tmp_path):
    first = returned(method, "R01", tmp_path)
    Transaction.objects.filter(pk=first.pk).update(
        effective_date=calendar.eastern_now(timezone.now()).date() - timedelta(days=181)  # the window counts ET days
    )
    assert charge(api_client, method=method).status_code == 201


def test_another_companys_return_does_not_count(api_client, other_api_client, method, tmp_path):
    returned(method, "R01", tmp_path)
    assert charge(other_api_client).status_code == 201


# Blocked accounts


@pytest.mark.parametrize("code", sorted(ACCOUNT_BLOCK_CODES))
def test_after_a_blocking_return_every_debit_to_the_account_is_409(api_client, method, company, tmp_path, code):
    first = returned(method, code, tmp_path)
    # The same account saved by another customer of the company is the same account.
    other_customer = factories.CustomerFactory(company=company)
    same_account = factories.PaymentMethodFactory(
        customer=other_customer, account_number=ACCOUNT, routing_number=ROUTING
    )
    count = Transaction.objects.count()

    for response in (
        charge(api_client),
        charge(api_client, amount=99),
        charge(api_client, method=same_account, amount=12345),
    ):
        body = refused(response, 409, "account_blocked")
        assert body["data"] == {"transactionUuid": str(first.uuid), "returnCode": code}
        assert f"account blocked after return {code} on {first.uuid}" in body["message"]
    assert Transaction.objects.count() == count
    block = AccountBlock.objects.get()
    assert (block.company, block.return_code, block.transaction_id, block.lifted_at) == (company, code, first.pk, None)
    assert block.account_hash == crypto.account_pair_hash(ROUTING, ACCOUNT) and block.account_last_four == "6789"
    assert RiskAction.objects.filter(action="block_account", transaction=first).count() == 1
    event = Event.objects.get(type="account.blocked")
    assert (event.data["returnCode"], event.data["accountNumber"]) == (code, "****6789")
    assert ACCOUNT not in str(event.data)


def test_a_credit_to_a_blocked_account_is_still_accepted(api_client, method, tmp_path):
    returned(method, "R03", tmp_path)
    assert charge(api_client, type="Credit").status_code == 201


@pytest.mark.parametrize("code", ["R01", "R51", "R06"])
def test_codes_outside_the_rule_place_no_account_block(api_client, method, tmp_path, code):
    returned(method, code, tmp_path)
    assert not AccountBlock.objects.exists()
    # R01 is no block but re-initiation (the retry route only), whatever the amount.
    assert charge(api_client, amount=1).status_code == (409 if code == "R01" else 201)


def test_another_companys_block_does_not_apply(other_api_client, method, tmp_path):
    returned(method, "R02", tmp_path)
    assert charge(other_api_client).status_code == 201


def test_one_live_block_per_company_and_account_is_a_database_rule(method, company, tmp_path):
    first = returned(method, "R02", tmp_path)
    block = AccountBlock.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountBlock.objects.create(
            company=company,
            account_hash=block.account_hash,
            account_number_hash=block.account_number_hash,
            routing_number=ROUTING,
            account_last_four="6789",
            return_code="R03",
            transaction=first,
            blocked_at=timezone.now(),
        )
    with pytest.raises(IntegrityError), transaction.atomic():
        AccountBlock.objects.filter(pk=block.pk).update(lifted_at=timezone.now())  # a lift without a reason


# The operator's lift


def _staff(company, *, can_lift: bool):
    user = factories.UserFactory(is_staff=True)
    factories.membership(user, company)
    names = ["view_accountblock", *(["lift_account_block"] if can_lift else [])]
    user.user_permissions.add(*Permission.objects.filter(content_type__app_label="transactions", codename__in=names))
    return user


def _lift(client, block, reason: str):
    return client.post(
        "/admin/transactions/accountblock/",
        {"action": "lift", "_selected_action": [block.pk], "lift_reason": reason},
        follow=True,
    )


def test_an_operator_lifts_a_block_with_a_reason_and_debits_go_again(api_client, method, company, tmp_path, client):
    returned(method, "R03", tmp_path)
    method.refresh_from_db()
    assert method.blocked_at is not None  # the policy's method block of the same return
    block = AccountBlock.objects.get()
    user = _staff(company, can_lift=True)
    client.force_login(user)

    assert _lift(client, block, "   ").status_code == 200
    block.refresh_from_db()
    assert block.lifted_at is None  # no reason, no lift

    _lift(client, block, "customer sent a letter from the bank: account reopened")

    block.refresh_from_db()
    assert block.lifted_at is not None and block.lifted_by == user
    assert block.lift_reason == "customer sent a letter from the bank: account reopened"
    method.refresh_from_db()
    assert method.blocked_at is None
    lifted = Event.objects.get(type="account.block_lifted")
    assert lifted.data["liftReason"] == block.lift_reason
    assert RiskAction.objects.filter(action="lift_account_block").count() == 1
    assert charge(api_client, method=method, amount=777).status_code == 201
    assert charge(api_client, amount=778).status_code == 201


def test_lifting_needs_its_own_permission(method, company, tmp_path, client):
    returned(method, "R03", tmp_path)
    block = AccountBlock.objects.get()
    client.force_login(_staff(company, can_lift=False))

    _lift(client, block, "no permission")

    block.refresh_from_db()
    assert block.lifted_at is None
    assert not Event.objects.filter(type="account.block_lifted").exists()
