"""The Nacha rules independent readers do not check, read back from the files `originate` writes (CONTRACT 12;
ACH review d-3): no TEL or WEB credit (micro-deposit credits go PPD/CCD), and each entry's SEC code fits its
account holder (PPD, WEB, TEL for a consumer; CCD for an organization). Every kind of request a client can send goes
in; whatever the API accepts must come out right."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from customers.models import Customer
from tests import factories, nacha_check
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

SEC_CODES = (None, "PPD", "CCD", "WEB", "TEL")


def _holder(customer: Customer | None) -> str | None:
    """CONTRACT 12: the customer's accountHolderType; without one, consumer when it has a first and last name."""
    if customer is None:
        return None
    if customer.account_holder_type:
        return customer.account_holder_type
    return "consumer" if customer.first_name and customer.last_name else "organization"


def _payers(company) -> list[tuple[Customer, object]]:
    consumer = factories.CustomerFactory(company=company, account_holder_type="consumer")
    business = factories.CustomerFactory(
        company=company, account_holder_type="organization", first_name="", last_name="", company_name="Beta Corp"
    )
    untyped = factories.CustomerFactory(
        company=company, account_holder_type="", first_name="", last_name="", company_name="Gamma LLC"
    )
    return [(customer, factories.PaymentMethodFactory(customer=customer)) for customer in (consumer, business, untyped)]


def test_every_entry_the_api_accepts_goes_out_under_an_allowed_sec_code(api_client, company, ordinary_banking_day):
    payers = _payers(company)
    for customer, method in payers:
        for direction in ("Debit", "Credit"):
            for sec in SEC_CODES:
                extra = {"type": direction, **({"standardEntryClassCode": sec} if sec else {})}
                put_charge(api_client, saved_charge(customer, method, amount=1000, **extra))
            put_charge(api_client, saved_charge(customer, method, amount=1100, method="RCC", type=direction))
        url = f"/customers/{customer.uuid}/payment-methods/{method.uuid}/validate"
        api_client.post(url, {"method": "microdeposits"}, format="json")
    for direction in ("Debit", "Credit"):
        for sec in SEC_CODES:
            body = {"method": "ACH", "type": direction, "amount": 1200, "paymentDetails": bank_details()}
            put_charge(api_client, {**body, **({"standardEntryClassCode": sec} if sec else {})})
    assert Transaction.objects.filter(status="Pending").exists()

    summary = run("originate", "--at", datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))

    holders = {
        trace: _holder(customer)
        for trace, customer in (
            (txn.trace_number, txn.customer) for txn in Transaction.objects.filter(batch__isnull=False)
        )
    }
    assert summary["files"]
    found = [
        problem
        for path in summary["files"]
        for problem in nacha_check.rule_problems(Path(path).read_text(), holders.get)
    ]
    assert found == [], "\n".join(found)
