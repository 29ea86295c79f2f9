"""Risk limits (SPEC 4.7 rule 9, CONTRACT 6): DECLINED and HELD are 201s."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests import factories
from tests.concurrency import at_once
from tests.transactions.ach.conftest import run
from tests.transactions.conftest import put_charge, saved_charge
from transactions.models import Status, Transaction, TransactionHold


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("amount", "status", "hold_code"),
    [
        (1_000_000, "Pending", None),
        (1_000_001, "HELD", "AMT"),
        (2_500_000, "HELD", "AMT"),
        (2_500_001, "DECLINED", None),
    ],
)
def test_default_limits(api_client, customer, saved_method, amount, status, hold_code):
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=amount))
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["status"] == status
    assert data.get("holdCode") == hold_code
    assert TransactionHold.objects.filter(transaction__uuid=data["uuid"]).exists() == (hold_code is not None)
    if status == "DECLINED":
        assert "decline limit" in data["failureReason"]


@pytest.mark.django_db
def test_company_limits_are_per_company(api_client, company, customer, saved_method):
    company.merchant_settings.hold_over, company.merchant_settings.decline_over = 100, 200
    company.merchant_settings.save()
    held = put_charge(api_client, saved_charge(customer, saved_method, amount=150)).json()["data"]
    assert (held["status"], held["holdCode"]) == ("HELD", "AMT")
    assert "hold limit of 100" in held["holdReason"]
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=201)).json()["data"]["status"] == (
        "DECLINED"
    )
    hold = TransactionHold.objects.get()
    assert (hold.hold_code, hold.company_id) == ("AMT", company.id)


@pytest.mark.django_db
def test_held_transaction_reads_back_with_its_hold(api_client, company, customer, saved_method):
    company.merchant_settings.hold_over = 10
    company.merchant_settings.save()
    created = put_charge(api_client, saved_charge(customer, saved_method, amount=11)).json()["data"]
    assert api_client.get(f"/transactions/{created['uuid']}").json()["data"] == created


@pytest.mark.django_db
def test_daily_volume_limit_holds_the_charge_that_passes_it(api_client, company, customer, saved_method):
    company.merchant_settings.daily_volume_limit = 1000
    company.merchant_settings.save()
    statuses = [
        put_charge(api_client, saved_charge(customer, saved_method, amount=400)).json()["data"] for _ in range(3)
    ]
    assert [s["status"] for s in statuses] == ["Pending", "Pending", "HELD"]
    assert statuses[2]["holdCode"] == "VOL"
    # Held charges count (they may still be released); voided ones move no money and free their share.
    api_client.post(f"/transactions/{statuses[1]['uuid']}/void")
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=200)).json()["data"]["status"] == (
        "Pending"
    )
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=100)).json()["data"]["status"] == ("HELD")


@pytest.mark.django_db
def test_without_daily_limit_volume_is_unbounded(api_client, customer, saved_method):
    for _ in range(3):
        assert (
            put_charge(api_client, saved_charge(customer, saved_method, amount=900_000)).json()["data"]["status"]
            == "Pending"
        )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_daily_volume_limit_holds_under_concurrency():
    company = factories.CompanyFactory(daily_volume_limit=5_000)
    key = factories.issue_api_key(company)
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    body = saved_charge(customer, method, amount=1_000)

    def charge() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        return put_charge(client, body).status_code

    statuses = at_once(charge, 10)
    assert statuses == [201] * 10
    assert Transaction.objects.filter(status=Status.PENDING).count() == 5
    assert Transaction.objects.filter(status=Status.HELD).count() == 5


@pytest.mark.django_db
def test_held_rtp_is_not_settled_and_declined_card_is_not_authorized(api_client, company, customer, saved_method):
    from tests.transactions.conftest import card_details

    company.merchant_settings.hold_over, company.merchant_settings.decline_over = 100, 200
    company.merchant_settings.save()
    rtp = put_charge(api_client, saved_charge(customer, saved_method, method="RTP", amount=150)).json()["data"]
    assert (rtp["status"], rtp["rtpTransactionId"], rtp["holdCode"]) == ("HELD", None, "AMT")
    assert Transaction.objects.get(uuid=rtp["uuid"]).settlement_id is None
    body = {"method": "CRD", "type": "Debit", "amount": 201, "paymentDetails": card_details()}
    card = put_charge(api_client, body).json()["data"]
    assert (card["status"], card["authorizedAt"], card["authResponseCode"]) == ("DECLINED", None, None)


@pytest.mark.django_db
def test_declined_charges_do_not_use_up_the_daily_volume(api_client, company, customer, saved_method):
    company.merchant_settings.daily_volume_limit, company.merchant_settings.decline_over = 1000, 500
    company.merchant_settings.save()
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=600)).json()["data"]["status"] == (
        "DECLINED"
    )
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=500)).json()["data"]["status"] == (
        "Pending"
    )
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=500)).json()["data"]["status"] == (
        "Pending"
    )
    assert put_charge(api_client, saved_charge(customer, saved_method, amount=1)).json()["data"]["status"] == "HELD"


@pytest.mark.django_db
def test_a_held_charge_says_why_in_hold_reason_not_as_a_failure(api_client, company, customer, saved_method):
    """F17: HELD is no failure; once released the charge carries no failure either."""
    company.merchant_settings.hold_over = 10
    company.merchant_settings.save()
    held = put_charge(api_client, saved_charge(customer, saved_method, amount=11)).json()["data"]
    assert held["status"] == "HELD" and held["holdReason"] and held["failureReason"] is None
    assert run("release_holds", "--uuid", held["uuid"])["released"] == 1
    released = api_client.get(f"/transactions/{held['uuid']}").json()["data"]
    assert released["status"] == "Pending" and released["failureReason"] is None


@pytest.mark.django_db
@pytest.mark.parametrize("suffix", ["", "/events", "/void"])
def test_a_transaction_not_found_names_its_own_key(api_client, suffix):
    """F17: the transaction's key is `uuid` (its record's), not `transactionUuid`."""
    url = f"/transactions/00000000-0000-4000-8000-000000000000{suffix}"
    response = api_client.post(url) if suffix == "/void" else api_client.get(url)
    assert response.status_code == 404
    assert response.json()["errors"] == [{"field": "uuid", "code": "not_found", "message": "Transaction not found"}]
