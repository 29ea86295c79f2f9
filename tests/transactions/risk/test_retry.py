"""POST /transactions/{uuid}/retry (CONTRACT 10, Nacha 2.12.4): R01 and R09 only, at most twice, within 180 days."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from transactions.models import Transaction, TransactionReturn
from transactions.return_codes import RETURN_CODES
from transactions.risk.policies import company_debit_hold_place
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def method(company):
    customer = factories.CustomerFactory(company=company)
    return factories.PaymentMethodFactory(customer=customer, account_number="000123456789")


def returned_debit(method, code: str, **overrides) -> Transaction:
    txn = factories.TransactionFactory(
        company=method.company,
        customer=method.customer,
        payment_method=method,
        account_number=method.account_number,
        status="Returned",
        **overrides,
    )
    TransactionReturn.objects.create(
        company=txn.company,
        transaction=txn,
        return_code=code,
        return_reason=RETURN_CODES[code].reason,
        returned_at=timezone.now(),
    )
    return txn


def retry(client, txn, **kwargs):
    return client.post(f"/transactions/{txn.uuid}/retry", **kwargs)


@pytest.mark.parametrize("code", ["R01", "R09"])
def test_retry_of_r01_or_r09_is_a_new_pending_debit_with_retry_pymt(api_client, method, code):
    original = returned_debit(method, code, amount=4321, standard_entry_class_code="PPD")

    response = retry(api_client, original)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["uuid"] != str(original.uuid)
    assert (data["status"], data["amount"], data["type"], data["method"]) == ("Pending", 4321, "Debit", "ACH")
    assert (data["standardEntryClassCode"], data["paymentMethodUuid"]) == ("PPD", str(method.uuid))
    new = Transaction.objects.get(uuid=data["uuid"])
    assert new.retry_of == original
    assert new.entry_description == "RETRY PYMT"


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("R07", "never re-presented after R07"),
        ("R08", "new authorization"),
        ("R10", "never re-presented after R10"),
        ("R02", "only R01 and R09"),
        ("R05", "only R01 and R09"),
        ("R16", "only R01 and R09"),
    ],
)
def test_retry_after_any_other_code_is_409_with_the_reason(api_client, method, code, reason):
    original = returned_debit(method, code)

    response = retry(api_client, original)

    assert response.status_code == 409
    body = response.json()
    assert body["errors"][0]["code"] == "return_code_not_retryable"
    assert reason in body["message"] and code in body["message"]
    assert Transaction.objects.count() == 1


def test_at_most_two_retries_of_one_debit(api_client, method):
    original = returned_debit(method, "R01")
    first = Transaction.objects.get(uuid=retry(api_client, original).json()["data"]["uuid"])
    assert retry(api_client, original).status_code == 409  # the original was already re-presented
    _return(first, "R09")
    second = Transaction.objects.get(uuid=retry(api_client, first).json()["data"]["uuid"])
    assert second.retry_of == original
    _return(second, "R01")

    response = retry(api_client, second)

    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "retry_limit_reached"
    assert original.retries.count() == 2


def _return(txn: Transaction, code: str) -> None:
    txn.status = "Returned"
    txn.save(update_fields=["status"])
    TransactionReturn.objects.create(
        company=txn.company,
        transaction=txn,
        return_code=code,
        return_reason=RETURN_CODES[code].reason,
        returned_at=timezone.now(),
    )


def test_retry_more_than_180_days_after_the_original_is_409(api_client, method):
    original = returned_debit(method, "R01", effective_date=timezone.now().date() - timedelta(days=190))

    response = retry(api_client, original)

    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "retry_window_passed"


@pytest.mark.parametrize("status", ["Pending", "Processing", "Settled"])
def test_retry_of_a_debit_that_was_not_returned_is_409(api_client, method, status):
    txn = factories.TransactionFactory(company=method.company, status=status)

    response = retry(api_client, txn)

    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "not_returned"


def test_retry_of_a_returned_credit_is_409(api_client, method):
    credit = returned_debit(method, "R01", type="Credit")
    assert retry(api_client, credit).status_code == 409


def test_another_companys_transaction_is_404(api_client, other_company):
    theirs = factories.TransactionFactory(company=other_company, status="Returned")
    response = retry(api_client, theirs)
    assert response.status_code == 404
    assert response.json()["message"] == "Transaction not found"


def test_retry_takes_no_body(api_client, method):
    original = returned_debit(method, "R01")
    assert retry(api_client, original, data={"amount": 1}, format="json").status_code == 400


def test_retry_of_a_one_off_charge_debits_the_same_account(api_client, company):
    original = factories.TransactionFactory(company=company, status="Returned", account_number="987654321")
    _return(original, "R01")

    response = retry(api_client, original)

    assert response.status_code == 201, response.content
    new = Transaction.objects.get(uuid=response.json()["data"]["uuid"])
    assert (new.account_number, new.routing_number, new.customer) == ("987654321", original.routing_number, None)


def test_retry_while_the_company_debits_are_held_is_held(api_client, method):
    company_debit_hold_place(
        company_id=method.company_id, reason="overall return rate over threshold", at=timezone.now()
    )
    response = retry(api_client, returned_debit(method, "R01"))

    assert response.status_code == 201
    assert (response.json()["data"]["status"], response.json()["data"]["holdCode"]) == ("HELD", "RTN")


@pytest.mark.usefixtures("ordinary_banking_day")
def test_a_retry_goes_out_in_the_next_file_through_the_real_commands(api_client, company, method, tmp_path):
    # One return of one debit is a 100% rate: this company's policy alerts without holding its debits.
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 2500,
        "customerUuid": str(method.customer.uuid),
        "paymentMethodUuid": str(method.uuid),
        "paymentDetails": {
            "name": "x",
            "accountType": "Checking",
            "accountNumber": "1111",
            "routingNumber": "021000021",
        },
    }
    original = Transaction.objects.get(uuid=api_client.put("/transactions", body, format="json").json()["data"]["uuid"])
    now = timezone.now()
    run("originate", "--at", now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    original.refresh_from_db()
    path = tmp_path / "returns.ach"
    path.write_text(return_file_for([(original, "R01", {})], at=now))
    assert run("import_returns", str(path), "--at", (now + timedelta(hours=1)).isoformat())["returns"] == 1

    response = retry(api_client, original)

    assert response.status_code == 201, response.content
    later = datetime.now(UTC) + timedelta(days=5)
    summary = run("originate", "--at", later.strftime("%Y-%m-%dT%H:%M:%SZ"))
    files = summary["files"]
    assert files, (summary, list(Transaction.objects.values("status", "effective_date", "batch_id")))
    (text,) = [open(name).read() for name in files]
    (entry,) = [entry for batch in nacha_reader.read(text).batches for entry in batch.entries]
    assert entry.amount == 2500
    # The batch header carries the retry's Company Entry Description (Nacha 2.12.4).
    new = Transaction.objects.select_related("batch").get(uuid=response.json()["data"]["uuid"])
    assert new.batch.entry_description == "RETRY PYMT"
    assert "RETRY PYMT" in text


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_of_one_return_make_one_debit():
    from rest_framework.test import APIClient

    from tests.concurrency import at_once

    company = factories.CompanyFactory()
    key = factories.issue_api_key(company)
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    original = returned_debit(method, "R01")

    def attempt() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        return retry(client, original).status_code

    assert sorted(at_once(attempt, 6)) == [201] + [409] * 5
    assert original.retries.count() == 1
