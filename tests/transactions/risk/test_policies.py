"""Return policies applied by `import_returns`: the defaults of the code table, and a company's own rows."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, run, saved_method_txn, statements_counted
from transactions.models import DebitHold, ReturnPolicy, RiskAction, RiskAlert
from transactions.return_codes import PolicyAction
from transactions.risk.policies import policy_in_force
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

RETURN_TIME = "2026-12-08T14:00:00Z"
BLOCK = {PolicyAction.BLOCK_METHOD}
BLOCK_AND_HOLD = {PolicyAction.BLOCK_METHOD, PolicyAction.HOLD_CUSTOMER_DEBITS}


@pytest.fixture
def method(company):
    # Alerts and the company-wide hold are the rate tests' subject; here one return would breach every rate.
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    customer = factories.CustomerFactory(company=company)
    return factories.PaymentMethodFactory(customer=customer)


def _import_return(tmp_path, method, code: str):
    txn = saved_method_txn(method)
    run("originate", "--at", MONDAY_MORNING)
    txn.refresh_from_db()
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(txn, code, {})], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    assert run("import_returns", str(path), "--at", RETURN_TIME)["returns"] == 1
    method.refresh_from_db()
    method.customer.refresh_from_db()
    return txn


def test_default_policy_follows_the_rules(company):
    in_force = policy_in_force(company=company)
    assert {code: set(actions) for code, actions in in_force.items() if actions} == {
        **{code: BLOCK for code in ("R02", "R03", "R04", "R16", "R20")},
        **{code: BLOCK_AND_HOLD for code in ("R05", "R07", "R10", "R29", "R51")},
    }


@pytest.mark.parametrize("code", ["R02", "R03", "R04", "R16", "R20"])
def test_default_block_codes_block_the_method_only(tmp_path, method, code):
    _import_return(tmp_path, method, code)

    assert method.blocked_at is not None and method.blocked_reason.startswith(code)
    assert not DebitHold.objects.filter(customer__isnull=False).exists()
    assert method.customer.status == "active"


@pytest.mark.parametrize("code", ["R05", "R07", "R10", "R29", "R51"])
def test_default_unauthorized_codes_block_and_hold_the_customers_debits(tmp_path, method, code):
    txn = _import_return(tmp_path, method, code)

    assert method.blocked_at is not None
    hold = DebitHold.objects.get(customer=method.customer)
    assert hold.lifted_at is None and code in hold.reason
    # The account block is the rule's (CONTRACT 12), not the policy's: R51 is not among its codes.
    assert set(RiskAction.objects.filter(transaction=txn).values_list("action", flat=True)) == {
        "block_method",
        "hold_customer_debits",
        *(["block_account"] if code != "R51" else []),
    }


def test_r01_does_nothing_by_default(tmp_path, method):
    _import_return(tmp_path, method, "R01")
    assert method.blocked_at is None
    assert not RiskAction.objects.exists()


def test_a_company_row_replaces_the_default(tmp_path, method, company, api_client):
    ReturnPolicy.objects.create(company=company, return_code="R01", deactivate_customer=True, notify=True)
    ReturnPolicy.objects.create(company=company, return_code="R02")  # no action at all

    txn = _import_return(tmp_path, method, "R01")

    assert method.customer.status == "inactive"
    notice = RiskAlert.objects.get(level="notice")
    assert (notice.category, notice.transaction) == ("R01", txn)
    assert set(RiskAction.objects.values_list("action", flat=True)) == {"deactivate_customer", "notify"}
    assert policy_in_force(company=company)["R02"] == frozenset()


def test_another_companys_policy_does_not_apply(tmp_path, method, other_company):
    ReturnPolicy.objects.create(company=other_company, return_code="R02")
    _import_return(tmp_path, method, "R02")
    assert method.blocked_at is not None


def test_the_customer_hold_holds_that_customers_next_debit_only(tmp_path, method, company, api_client):
    _import_return(tmp_path, method, "R10")
    other = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    second = factories.PaymentMethodFactory(customer=method.customer)
    details = {"name": "x", "accountType": "Checking", "accountNumber": "1111", "routingNumber": "021000021"}

    def charge(saved):
        body = {
            "method": "ACH",
            "type": "Debit",
            "amount": 1000,
            "customerUuid": str(saved.customer.uuid),
            "paymentMethodUuid": str(saved.uuid),
            "paymentDetails": details,
        }
        return api_client.put("/transactions", body, format="json").json()["data"]

    held, free = charge(second), charge(other)

    assert (held["status"], held["holdCode"]) == ("HELD", "RTN")
    assert free["status"] == "Pending"


def test_two_returns_of_one_customer_in_a_file_block_and_hold_once(tmp_path, method, company):
    """Two R10s of the same saved method in one file: the first blocks the method, the account and the customer's
    debits, with one risk action each; the second finds all three done. A later file's R10 adds nothing."""
    from events.models import Event

    first, second, later = (saved_method_txn(method, amount=amount) for amount in (101, 102, 103))
    run("originate", "--at", MONDAY_MORNING)
    for txn in (first, second, later):
        txn.refresh_from_db()
    at = datetime(2026, 12, 8, 13, tzinfo=UTC)
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(first, "R10", {}), (second, "R10", {})], at=at))
    assert run("import_returns", str(path), "--at", RETURN_TIME)["returns"] == 2

    method.refresh_from_db()
    assert method.blocked_reason.startswith("R10 ")
    hold = DebitHold.objects.get(customer=method.customer, lifted_at__isnull=True)
    assert "R10" in hold.reason and hold.company_id == company.pk
    assert sorted(RiskAction.objects.values_list("action", "transaction_id")) == [
        ("block_account", first.pk),
        ("block_method", first.pk),
        ("hold_customer_debits", first.pk),
    ]
    assert Event.objects.filter(type="payment_method.blocked", object_uuid=method.uuid).count() == 1
    company.merchant_settings.refresh_from_db()
    assert company.merchant_settings.has_debit_holds

    path = tmp_path / "later.ach"
    path.write_text(return_file_for([(later, "R10", {})], at=at))
    assert run("import_returns", str(path), "--at", "2026-12-08T15:00:00Z")["returns"] == 1
    assert DebitHold.objects.filter(customer=method.customer).count() == 1
    assert RiskAction.objects.count() == 3


def _policy_file(tmp_path, company, customers: int, name: str, codes=("R01", "R01")):
    """Two returns (`codes`) for each of `customers` customers of the company, sent, and the bank's return file."""
    company.merchant_settings.hold_debits_on_breach = False  # the rates are not this test's subject
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    entries = []
    for _ in range(customers):
        saved = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
        entries += [saved_method_txn(saved, amount=101), saved_method_txn(saved, amount=102)]
    run("originate", "--at", MONDAY_MORNING)
    for txn in entries:
        txn.refresh_from_db()
    path = tmp_path / name
    returned = [(txn, codes[n % 2], {}) for n, txn in enumerate(entries)]
    path.write_text(return_file_for(returned, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return path, entries


def test_a_notify_and_deactivate_policy_acts_once_a_customer_and_notifies_each_return(tmp_path, company, api_client):
    from events.models import Event

    ReturnPolicy.objects.create(company=company, return_code="R01", deactivate_customer=True, notify=True)
    path, entries = _policy_file(tmp_path, company, 2, "returns.ach")

    assert run("import_returns", str(path), "--at", RETURN_TIME)["returns"] == 4

    customers = [entries[0].customer, entries[2].customer]
    assert sorted(RiskAlert.objects.filter(level="notice").values_list("transaction_id", flat=True)) == sorted(
        txn.pk for txn in entries
    )
    assert sorted(RiskAction.objects.values_list("action", "transaction_id")) == sorted(
        [
            *(("notify", txn.pk) for txn in entries),
            ("deactivate_customer", entries[0].pk),
            ("deactivate_customer", entries[2].pk),
        ]
    )
    assert None not in RiskAction.objects.filter(action="notify").values_list("alert", flat=True)
    for customer in customers:
        customer.refresh_from_db()
        assert customer.status == "inactive"
        deactivated = Event.objects.get(type="customer.deactivated", object_uuid=customer.uuid)
        assert deactivated.data == api_client.get(f"/customers/{customer.uuid}").json()["data"]  # as its route shows it


def test_the_statements_of_a_return_file_do_not_grow_with_its_policy_actions(tmp_path, company, other_company):
    counts = []
    for tenant, customers in ((company, 1), (other_company, 4)):
        ReturnPolicy.objects.create(company=tenant, return_code="R01", deactivate_customer=True, notify=True)
        # R01 as the policy says, R10 as the default: the method, the account and the customer's debits blocked.
        path, _entries = _policy_file(tmp_path, tenant, customers, f"returns-{customers}.ach", codes=("R01", "R10"))
        with statements_counted() as statements:
            assert run("import_returns", str(path), "--at", RETURN_TIME)["returns"] == 2 * customers
        counts.append(len(statements))

    assert counts[1] == counts[0]
