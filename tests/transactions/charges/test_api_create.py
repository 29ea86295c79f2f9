from __future__ import annotations

from dataclasses import fields

import pytest
from django.db import connection

from events.models import Event
from tests.transactions.conftest import VISA, bank_details, card_details, put_charge, saved_charge
from transactions.charges.services import ChargeRequest
from transactions.charges.views import CHARGE_REQUEST_FIELDS, ChargeInputSerializer
from transactions.models import Settlement, Transaction
from vault import crypto

pytestmark = pytest.mark.django_db


def test_saved_method_charge_is_201_with_the_contract_record(api_client, customer, saved_method):
    body = saved_charge(customer, saved_method, externalUniqueId="order-77", description="March invoice")
    response = put_charge(api_client, body)
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "success"
    data = body["data"]
    txn = Transaction.objects.get()
    assert data["uuid"] == str(txn.uuid)
    assert data["numericId"] == txn.id
    assert data["status"] == "Pending"
    assert data["amount"] == 1500
    assert (data["method"], data["type"]) == ("ACH", "Debit")
    assert data["customerUuid"] == str(customer.uuid)
    assert data["paymentMethodUuid"] == str(saved_method.uuid)
    assert data["standardEntryClassCode"] == "WEB"
    assert data["externalUniqueId"] == "order-77"
    assert data["description"] == "March invoice"
    assert data["sequenceUuid"] == str(txn.sequence_uuid)
    assert data["createdAt"].endswith("Z")
    assert data["isDuplicate"] is False
    assert data["idempotencyKey"] is None
    assert data["rtpTransactionId"] is None


def test_saved_method_values_replace_submitted_payment_details(api_client, customer, saved_method):
    submitted = bank_details(name="Someone Else", accountType="Checking", accountNumber="55554444")
    response = put_charge(api_client, saved_charge(customer, saved_method, paymentDetails=submitted))
    assert response.status_code == 201, response.content
    assert response.json()["data"]["paymentDetails"] == {
        "name": "Ada Lovelace",
        "accountType": "Savings",
        "accountNumber": "****6789",
        "routingNumber": "021000021",
    }
    txn = Transaction.objects.get()
    assert txn.account_number == "000123456789"
    assert txn.account_number_hash == crypto.account_number_hash("000123456789")


def test_organization_holder_name_is_the_company_name(api_client, company):
    from tests import factories

    org = factories.CustomerFactory(
        company=company, account_holder_type="organization", company_name="Acme Corp", first_name="", last_name=""
    )
    method = factories.PaymentMethodFactory(customer=org)
    response = put_charge(api_client, saved_charge(org, method))
    assert response.json()["data"]["paymentDetails"]["name"] == "Acme Corp"


def test_account_number_is_encrypted_at_rest(api_client, customer, saved_method):
    put_charge(api_client, saved_charge(customer, saved_method))
    with connection.cursor() as cursor:
        cursor.execute("SELECT account_number FROM transactions_transaction")
        (raw,) = cursor.fetchone()
    assert "000123456789" not in raw
    assert Transaction.objects.get().account_number == "000123456789"


def test_get_returns_the_same_record_as_create(api_client, customer, saved_method):
    created = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    response = api_client.get(f"/transactions/{created['uuid']}")
    assert response.status_code == 200
    assert response.json()["data"] == created


def test_details_charge_without_customer(api_client):
    response = put_charge(
        api_client, {"method": "RCC", "type": "Debit", "amount": 99, "paymentDetails": bank_details()}
    )
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["customerUuid"] is None and data["paymentMethodUuid"] is None
    assert data["standardEntryClassCode"] == "TEL"  # an RCC is sent as an ACH TEL entry (CONTRACT 12)
    assert data["paymentDetails"]["accountNumber"] == "****4321"
    assert data["paymentDetails"]["name"] == "Grace Hopper"


def test_customer_uuid_alone_links_the_customer_but_pulls_no_method(api_client, customer, saved_method):
    saved_method.is_default = True
    saved_method.save()
    body = {"method": "ACH", "type": "Debit", "amount": 100, "customerUuid": str(customer.uuid)}
    response = put_charge(api_client, body)
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "paymentDetails"
    response = put_charge(api_client, {**body, "paymentDetails": bank_details()})
    assert response.status_code == 201
    data = response.json()["data"]
    assert data["customerUuid"] == str(customer.uuid)
    assert data["paymentMethodUuid"] is None
    assert data["paymentDetails"]["accountNumber"] == "****4321"


def test_card_charge_is_authorized_and_only_masked_parts_are_stored(api_client):
    response = put_charge(
        api_client, {"method": "CRD", "type": "Debit", "amount": 2500, "paymentDetails": card_details()}
    )
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["status"] == "Pending"
    assert data["authResponseCode"] == "00"
    assert data["authorizedAt"].endswith("Z")
    assert data["paymentDetails"] == {
        "name": "Grace Hopper",
        "cardNumber": "411111******1111",
        "panFirstSix": "411111",
        "panLastFour": "1111",
        "expirationDate": "12/39",
    }
    txn = Transaction.objects.get()
    stored = " ".join(str(value) for value in Transaction.objects.values().get().values())
    assert VISA not in stored and "123" not in txn.card_masked
    assert txn.account_number is None


def test_rtp_settles_at_creation(api_client, customer, saved_method, company):
    response = put_charge(api_client, saved_charge(customer, saved_method, method="RTP"))
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["status"] == "Settled"
    assert data["rtpTransactionId"].startswith("RTP")
    assert data["standardEntryClassCode"] is None
    put_charge(api_client, saved_charge(customer, saved_method, method="RTP", amount=500, type="Credit"))
    settlement = Settlement.objects.get(company=company)
    assert settlement.kind == "regular"
    assert (settlement.transaction_count, settlement.net_amount) == (2, 1000)
    assert Transaction.objects.filter(settlement=settlement).count() == 2


@pytest.mark.parametrize(
    ("method", "code", "expected_status", "stored"),
    [
        ("ACH", None, 201, "WEB"),
        ("ACH", "PPD", 201, "PPD"),
        ("ACH", "CCD", 400, None),  # the customer is a consumer: CCD is for organizations (CONTRACT 12)
        ("ACH", "TEL", 201, "TEL"),
        ("ACH", "XYZ", 400, None),
        ("ACH", "WEBXX", 400, None),
        ("RCC", "WEB", 400, None),
        ("RCC", None, 201, "TEL"),
        ("RCC", "TEL", 201, "TEL"),
        ("RTP", "PPD", 400, None),
    ],
)
def test_standard_entry_class_code_table(api_client, customer, saved_method, method, code, expected_status, stored):
    body = saved_charge(customer, saved_method, method=method)
    if code is not None:
        body["standardEntryClassCode"] = code
    response = put_charge(api_client, body)
    assert response.status_code == expected_status, response.content
    if stored:
        assert response.json()["data"]["standardEntryClassCode"] == stored
    else:
        assert response.json()["errors"][0]["field"] == "standardEntryClassCode"


@pytest.mark.parametrize("amount", [15.0, "1500", True, 0, -5, 10_000_000_000, 10**40, None])
def test_amount_must_be_a_positive_bounded_json_integer(api_client, customer, saved_method, amount):
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=amount))
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "amount"
    assert not Transaction.objects.exists()


def test_largest_amount_is_accepted_and_declined_by_risk(api_client, customer, saved_method):
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=9_999_999_999))
    assert response.status_code == 201
    assert response.json()["data"]["status"] == "DECLINED"


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"unknown": 1}, "unknown"),
        ({"method": "WIRE"}, "method"),
        ({"type": "debit"}, "type"),
        ({"type": True}, "type"),
        ({"method": ["ACH"]}, "method"),
        ({"customerUuid": 12}, "customerUuid"),
        ({"customerUuid": "not-a-uuid"}, "customerUuid"),
        ({"effectiveDate": "2030-13-01"}, "effectiveDate"),
        ({"effectiveDate": 20300101}, "effectiveDate"),
        ({"externalUniqueId": 5}, "externalUniqueId"),
        ({"paymentDetails": "x"}, "paymentDetails"),
    ],
)
def test_malformed_fields_are_400_naming_the_field(api_client, customer, saved_method, overrides, field):
    response = put_charge(api_client, saved_charge(customer, saved_method, **overrides))
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field


def test_malformed_json_and_non_object_bodies_are_400(api_client):
    response = api_client.generic("PUT", "/transactions", "{oops", content_type="application/json")
    assert response.status_code == 400
    response = api_client.put("/transactions", [1, 2], format="json")
    assert response.status_code == 400
    assert response.json()["status"] == "error"


@pytest.mark.parametrize(
    ("details", "field"),
    [
        (bank_details(accountNumber="123"), "paymentDetails.accountNumber"),
        (bank_details(accountNumber="1" * 18), "paymentDetails.accountNumber"),
        (bank_details(accountNumber="12a456"), "paymentDetails.accountNumber"),
        (bank_details(routingNumber="021000022"), "paymentDetails.routingNumber"),
        (bank_details(routingNumber="02100002"), "paymentDetails.routingNumber"),
        (bank_details(accountType="Brokerage"), "paymentDetails.accountType"),
        ({"accountType": "Checking", "accountNumber": "123456", "routingNumber": "021000021"}, "paymentDetails.name"),
        (bank_details(extra="x"), "paymentDetails.extra"),
    ],
)
def test_bank_payment_details_are_validated(api_client, details, field):
    response = put_charge(api_client, {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": details})
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field


@pytest.mark.parametrize(
    ("details", "field"),
    [
        (card_details(cardNumber="4111111111111112"), "paymentDetails.cardNumber"),
        (card_details(cardNumber="4111-1111-1111-1111"), "paymentDetails.cardNumber"),
        (card_details(expirationDate="13/30"), "paymentDetails.expirationDate"),
        (card_details(expirationDate="01/20"), "paymentDetails.expirationDate"),
        (card_details(expirationDate="2030-01"), "paymentDetails.expirationDate"),
        (card_details(cvv="12"), "paymentDetails.cvv"),
        (card_details(cvv="12a"), "paymentDetails.cvv"),
        (card_details(cvv=123), "paymentDetails.cvv"),
        (bank_details(), "paymentDetails.accountType"),
    ],
)
def test_card_payment_details_are_validated(api_client, details, field):
    response = put_charge(api_client, {"method": "CRD", "type": "Debit", "amount": 100, "paymentDetails": details})
    assert response.status_code == 400, response.content
    fields = [error["field"] for error in response.json()["errors"]]
    assert field in fields


def test_card_without_cvv_is_accepted(api_client):
    details = card_details()
    del details["cvv"]
    response = put_charge(api_client, {"method": "CRD", "type": "Debit", "amount": 100, "paymentDetails": details})
    assert response.status_code == 201


def test_same_account_amount_and_type_within_24h_is_flagged_duplicate(api_client, customer, saved_method):
    first = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    second = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    other_amount = put_charge(api_client, saved_charge(customer, saved_method, amount=1501)).json()["data"]
    other_type = put_charge(api_client, saved_charge(customer, saved_method, type="Credit")).json()["data"]
    assert (first["isDuplicate"], second["isDuplicate"]) == (False, True)
    assert other_amount["isDuplicate"] is False
    assert other_type["isDuplicate"] is False
    assert Transaction.objects.count() == 4


def test_same_account_typed_in_matches_a_saved_method_charge_as_duplicate(api_client, customer, saved_method):
    put_charge(api_client, saved_charge(customer, saved_method))
    typed = bank_details(accountNumber="000123456789")
    response = put_charge(api_client, {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": typed})
    assert response.json()["data"]["isDuplicate"] is True


def test_duplicate_card_is_matched_by_first_six_and_last_four(api_client):
    body = {"method": "CRD", "type": "Debit", "amount": 700, "paymentDetails": card_details()}
    assert put_charge(api_client, body).json()["data"]["isDuplicate"] is False
    assert put_charge(api_client, body).json()["data"]["isDuplicate"] is True


def test_duplicate_window_is_24_hours(api_client, customer, saved_method):
    from datetime import timedelta

    from django.utils import timezone

    put_charge(api_client, saved_charge(customer, saved_method))
    Transaction.objects.update(created_at=timezone.now() - timedelta(hours=25))
    assert put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]["isDuplicate"] is False


def test_another_companys_identical_charge_is_not_a_duplicate(api_client, other_api_client, customer, saved_method):
    typed = bank_details(accountNumber="000123456789")
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": typed}
    put_charge(other_api_client, body)
    assert put_charge(api_client, body).json()["data"]["isDuplicate"] is False


def test_saved_method_charge_stays_a_handful_of_queries(
    api_client, customer, saved_method, django_assert_max_num_queries
):
    # Hot path: the API key from this process's copy (none: the first charge read it), the API throttle's one upsert
    # of both its counters (L6), the atomic's savepoint pair under the test transaction, the saved method with its
    # customer, for a debit the account check (CONTRACT 12: blocked account and re-initiation in one statement), then
    # the insert (which answers the duplicate check itself and writes its trail by trigger) with its outbox events:
    # on PostgreSQL one statement (row, sequence, events, subscribed endpoints), elsewhere four.
    # A regression here is a throughput regression.
    put_charge(api_client, saved_charge(customer, saved_method))
    with django_assert_max_num_queries(6 if connection.vendor == "postgresql" else 9):
        assert put_charge(api_client, saved_charge(customer, saved_method)).status_code == 201


def test_duplicate_flag_answered_is_the_one_stored_and_announced(api_client, customer, saved_method):
    put_charge(api_client, saved_charge(customer, saved_method))
    second = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    assert second["isDuplicate"] is True
    assert Transaction.objects.get(uuid=second["uuid"]).is_duplicate is True
    created = Event.objects.get(object_uuid=second["uuid"], type="transaction.created")
    assert created.data["isDuplicate"] is True


def test_every_field_of_the_charge_body_reaches_the_charge():
    """A field added to the body and not to CHARGE_REQUEST_FIELDS would be validated, then dropped."""
    assert set(ChargeInputSerializer().fields) == set(CHARGE_REQUEST_FIELDS)
    assert set(CHARGE_REQUEST_FIELDS.values()) <= {field.name for field in fields(ChargeRequest)}
