from __future__ import annotations

import logging
import uuid

import pytest

from payments.models import PaymentMethod
from tests.factories import CustomerFactory, PaymentMethodFactory
from tests.payments.conftest import OTHER_ROUTING, method_body

pytestmark = pytest.mark.django_db


def test_create_is_201_without_account_or_routing_number(api_client, customer):
    response = api_client.post("/customers/payment-methods", method_body(customer, nickname="Payroll"), format="json")
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) == {
        "customerUuid",
        "paymentMethodUuid",
        "type",
        "accountType",
        "lastFourDigits",
        "displayName",
        "isDefault",
        "nickname",
        "validationStatus",
        "validationMethod",
        "validatedAt",
        "correctedName",
        "blocked",
        "blockedAt",
        "blockedReason",
    }
    assert (data["validationStatus"], data["validationMethod"], data["validatedAt"]) == ("unvalidated", None, None)
    assert data["customerUuid"] == str(customer.uuid)
    assert data["type"] == "bank" and data["accountType"] == "Checking"
    assert data["lastFourDigits"] == "1012"
    assert data["displayName"] == "Checking ****1012"
    assert data["nickname"] == "Payroll"
    assert "987654321012" not in response.content.decode()
    assert "021000021" not in response.content.decode()


def test_first_method_is_default_even_when_request_says_false(api_client, customer):
    response = api_client.post("/customers/payment-methods", method_body(customer, isDefault=False), format="json")
    assert response.json()["data"]["isDefault"] is True


def test_second_method_is_not_default_unless_asked(api_client, customer):
    first = api_client.post("/customers/payment-methods", method_body(customer), format="json").json()["data"]
    second = api_client.post(
        "/customers/payment-methods", method_body(customer, accountNumber="5555"), format="json"
    ).json()["data"]
    assert second["isDefault"] is False
    assert PaymentMethod.objects.get(uuid=first["paymentMethodUuid"]).is_default


def test_is_default_true_moves_the_default(api_client, customer):
    first = api_client.post("/customers/payment-methods", method_body(customer), format="json").json()["data"]
    second = api_client.post(
        "/customers/payment-methods", method_body(customer, accountNumber="5555", isDefault=True), format="json"
    ).json()["data"]
    assert second["isDefault"] is True
    assert not PaymentMethod.objects.get(uuid=first["paymentMethodUuid"]).is_default
    read = api_client.get(f"/customers/{customer.uuid}").json()["data"]
    assert read["defaultPaymentMethod"] == second["paymentMethodUuid"]


def test_same_account_and_routing_again_is_409_naming_the_existing_method(api_client, customer):
    first = api_client.post("/customers/payment-methods", method_body(customer), format="json").json()["data"]
    response = api_client.post(
        "/customers/payment-methods", method_body(customer, accountType="Savings", isDefault=True), format="json"
    )
    assert response.status_code == 409
    body = response.json()
    assert body["status"] == "error"
    assert body["errors"][0]["field"] == "accountNumber"
    assert body["data"] == {"paymentMethodUuid": first["paymentMethodUuid"]}
    assert "987654321012" not in response.content.decode()
    assert PaymentMethod.objects.count() == 1
    assert PaymentMethod.objects.get().is_default


def test_same_account_with_other_routing_is_a_new_method(api_client, customer):
    api_client.post("/customers/payment-methods", method_body(customer), format="json")
    body = method_body(customer, routingNumber=OTHER_ROUTING)
    response = api_client.post("/customers/payment-methods", body, format="json")
    assert response.status_code == 201


def test_same_account_for_another_customer_is_allowed(api_client, customer, company):
    api_client.post("/customers/payment-methods", method_body(customer), format="json")
    other = CustomerFactory(company=company)
    assert api_client.post("/customers/payment-methods", method_body(other), format="json").status_code == 201


def test_deleted_account_can_be_saved_again(api_client, customer):
    first = api_client.post("/customers/payment-methods", method_body(customer), format="json").json()["data"]
    api_client.delete(f"/customers/{customer.uuid}/payment-methods/{first['paymentMethodUuid']}")
    again = api_client.post("/customers/payment-methods", method_body(customer), format="json")
    assert again.status_code == 201
    assert again.json()["data"]["isDefault"] is True


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"type": "card"}, "type"),
        ({"type": 1}, "type"),
        ({"accountType": "checking"}, "accountType"),
        ({"accountType": "Brokerage"}, "accountType"),
        ({"accountNumber": "123"}, "accountNumber"),
        ({"accountNumber": "123456789012345678"}, "accountNumber"),
        ({"accountNumber": "12345abc"}, "accountNumber"),
        ({"accountNumber": "١٢٣٤٥"}, "accountNumber"),
        ({"accountNumber": 987654321012}, "accountNumber"),
        ({"routingNumber": "021000022"}, "routingNumber"),
        ({"routingNumber": "02100002"}, "routingNumber"),
        ({"routingNumber": "0210000210"}, "routingNumber"),
        ({"routingNumber": 21000021}, "routingNumber"),
        ({"isDefault": "true"}, "isDefault"),
        ({"isDefault": 1}, "isDefault"),
        ({"nickname": 5}, "nickname"),
        ({"customerUuid": "nope"}, "customerUuid"),
        ({"customerUuid": 5}, "customerUuid"),
        ({"accountNumber": None}, "accountNumber"),
        ({"extra": "x"}, "extra"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_never_the_number(api_client, customer, overrides, field, caplog):
    caplog.set_level(logging.DEBUG)
    response = api_client.post("/customers/payment-methods", method_body(customer, **overrides), format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field
    for secret in ("987654321012", "123456789012345678", "12345abc"):
        assert secret not in response.content.decode()
        assert secret not in caplog.text
    assert not PaymentMethod.objects.exists()


@pytest.mark.parametrize("missing", ["customerUuid", "type", "accountType", "accountNumber", "routingNumber"])
def test_required_fields(api_client, customer, missing):
    body = method_body(customer)
    del body[missing]
    response = api_client.post("/customers/payment-methods", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == missing


def test_unknown_customer_is_404_customer_not_found(api_client):
    response = api_client.post("/customers/payment-methods", method_body(CustomerFactory.build()), format="json")
    assert response.status_code == 404
    assert response.json()["message"] == "Customer not found"


def test_other_companys_customer_is_404_as_if_absent(api_client, other_company):
    foreign = CustomerFactory(company=other_company)
    response = api_client.post("/customers/payment-methods", method_body(foreign), format="json")
    absent = api_client.post(
        "/customers/payment-methods", method_body(foreign, customerUuid=str(uuid.uuid4())), format="json"
    )
    assert response.status_code == 404
    assert response.json() == absent.json()
    assert not PaymentMethod.objects.exists()


def test_nothing_logged_contains_the_account_number(api_client, customer, caplog):
    caplog.set_level(logging.DEBUG)
    api_client.post("/customers/payment-methods", method_body(customer), format="json")
    api_client.post("/customers/payment-methods", method_body(customer), format="json")  # the 409
    listing = api_client.get(f"/customers/{customer.uuid}/payment-methods")
    assert "987654321012" in listing.content.decode()  # the list read returns it in full (SPEC 4.5) ...
    assert "987654321012" not in caplog.text  # ... but no log line ever holds it


def test_create_without_credentials_is_401(anonymous_client, customer):
    assert anonymous_client.post("/customers/payment-methods", method_body(customer), format="json").status_code == 401


def test_create_needs_rollout_flag_in_staged_rollout(api_client, customer, company):
    company.staged_rollout = True
    company.save()
    assert api_client.post("/customers/payment-methods", method_body(customer), format="json").status_code == 403


def test_new_method_leaves_an_existing_default_alone(api_client, customer):
    existing = PaymentMethodFactory(customer=customer, is_default=True)
    response = api_client.post("/customers/payment-methods", method_body(customer), format="json")
    assert response.json()["data"]["isDefault"] is False
    existing.refresh_from_db()
    assert existing.is_default


def test_optional_fields_sent_as_null_read_as_left_out(api_client, customer):
    body = method_body(customer, nickname=None, isDefault=None)
    response = api_client.post("/customers/payment-methods", body, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["data"]["nickname"] is None and response.json()["data"]["isDefault"] is True


def test_required_field_sent_as_null_is_400_naming_it(api_client, customer):
    response = api_client.post("/customers/payment-methods", method_body(customer, accountNumber=None), format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "accountNumber"
    assert not PaymentMethod.objects.exists()
