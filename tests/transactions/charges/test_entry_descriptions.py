"""Company Entry Descriptions and purposes on PUT /transactions (CONTRACT 11, Nacha 2026 PURCHASE / PAYROLL)."""

from __future__ import annotations

import pytest

from tests.transactions.conftest import bank_details, card_details, put_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def _charge(**overrides) -> dict:
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details()}
    body.update(overrides)
    return body


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"purpose": "goods"}, "PURCHASE"),  # consumer WEB debit for goods: filled in
        ({"purpose": "goods", "entryDescription": "PURCHASE"}, "PURCHASE"),
        ({"type": "Credit", "standardEntryClassCode": "PPD", "purpose": "payroll"}, "PAYROLL"),
        ({"purpose": "services", "entryDescription": "SUBSCRIBE"}, "SUBSCRIBE"),
        ({"purpose": "goods", "standardEntryClassCode": "PPD", "entryDescription": "INVOICE"}, "INVOICE"),
        ({}, "PAYMENT"),  # the default when nothing asks for another
        ({"method": "RCC", "purpose": "bill", "paymentDetails": bank_details()}, "PAYMENT"),
    ],
)
def test_description_stored_and_answered(api_client, overrides, expected):
    response = put_charge(api_client, _charge(**overrides))
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["entryDescription"] == expected
    assert data["purpose"] == overrides.get("purpose")
    assert Transaction.objects.get(uuid=data["uuid"]).entry_description == expected


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"purpose": "goods", "entryDescription": "ONLINE"}, "entryDescription must be PURCHASE"),
        (
            {"type": "Credit", "standardEntryClassCode": "PPD", "purpose": "payroll", "entryDescription": "WAGES"},
            "entryDescription must be PAYROLL",
        ),
        ({"purpose": "services", "entryDescription": "PURCHASE"}, "PURCHASE is only for"),
        ({"type": "Credit", "standardEntryClassCode": "PPD", "entryDescription": "PAYROLL"}, "PAYROLL is only for"),
        ({"entryDescription": "ACCTVERIFY"}, "reserved: the service writes it on the micro-entries"),
        # ACH review 2026-12-07 L1: near-misses of the 2026 standard words read as them.
        ({"purpose": "services", "entryDescription": "PURCHASES"}, "PURCHASES (read as PURCHASE) is only for"),
        ({"purpose": "services", "entryDescription": "PURCHASE-1"}, "(read as PURCHASE) is only for"),
        (
            {"type": "Credit", "standardEntryClassCode": "PPD", "entryDescription": "PAY ROLL"},
            "PAY ROLL (read as PAYROLL) is only for",
        ),
    ],
)
def test_mismatched_description_is_400_naming_the_field(api_client, overrides, message):
    response = put_charge(api_client, _charge(**overrides))
    assert response.status_code == 400
    body = response.json()
    assert body["errors"][0]["field"] == "entryDescription"
    assert message in body["message"]
    assert not Transaction.objects.exists()


@pytest.mark.parametrize("value", ["purchase", "ELEVEN CHAR", "CAFÉ", "   ", 7, "A\tB"])
def test_description_must_be_nacha_alphanumeric_of_at_most_10(api_client, value):
    response = put_charge(api_client, _charge(entryDescription=value))
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "entryDescription"


@pytest.mark.parametrize("value", ["food", "GOODS", 1])
def test_unknown_purpose_is_400(api_client, value):
    response = put_charge(api_client, _charge(purpose=value))
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "purpose"


def test_cards_and_rtp_take_no_entry_description(api_client):
    card = {"method": "CRD", "type": "Debit", "amount": 100, "paymentDetails": card_details()}
    assert put_charge(api_client, {**card, "entryDescription": "PAYMENT"}).status_code == 400
    assert put_charge(api_client, _charge(method="RTP", entryDescription="PAYMENT")).status_code == 400
    data = put_charge(api_client, {**card, "purpose": "goods"}).json()["data"]
    assert (data["entryDescription"], data["purpose"]) == (None, "goods")


def test_reporting_filters_by_entry_description(api_client):
    put_charge(api_client, _charge(purpose="goods"))
    put_charge(api_client, _charge(entryDescription="RENT"))
    response = api_client.get(
        "/reporting/transactions",
        {"page": 0, "pageSize": 10, "columns": "entryDescription,purpose", "entrydescription": "PURCHASE"},
    )
    assert response.status_code == 200
    assert [(r["entryDescription"], r["purpose"]) for r in response.json()["data"]] == [("PURCHASE", "goods")]
