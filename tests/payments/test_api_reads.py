from __future__ import annotations

import uuid

import pytest

from accounts.actions import LIVE_API_KEY_GROUP, Action
from accounts.models import ActionGroup
from accounts.selectors import clear_action_group_cache
from payments.models import PaymentMethod
from tests.factories import CustomerFactory, PaymentMethodFactory
from tests.payments.conftest import ROUTING

pytestmark = pytest.mark.django_db


def _url(customer, method=None, suffix=""):
    base = f"/customers/{customer.uuid}/payment-methods"
    return f"{base}/{method.uuid}{suffix}" if method else base


# List


def test_list_returns_full_numbers(api_client, customer):
    method = PaymentMethodFactory(customer=customer, account_number="987654321012", nickname="Main", is_default=True)
    response = api_client.get(_url(customer))
    assert response.status_code == 200
    methods = response.json()["data"]["paymentMethods"]
    assert methods == [
        {
            "customerUuid": str(customer.uuid),
            "paymentMethodUuid": str(method.uuid),
            "type": "bank",
            "accountType": "Checking",
            "accountNumber": "987654321012",
            "routingNumber": ROUTING,
            "nickname": "Main",
            "lastFourDigits": "1012",
            "displayName": "Checking ****1012",
            "isDefault": True,
            "validationStatus": "unvalidated",
            "validationMethod": None,
            "validatedAt": None,
            "correctedName": None,
            "blocked": False,
            "blockedAt": None,
            "blockedReason": None,
        }
    ]


def test_list_of_customer_without_methods_is_empty(api_client, customer):
    assert api_client.get(_url(customer)).json()["data"] == {"paymentMethods": []}


def test_list_leaves_out_other_customers_and_deleted_methods(api_client, customer, company):
    mine = PaymentMethodFactory(customer=customer)
    PaymentMethodFactory(customer=CustomerFactory(company=company))
    gone = PaymentMethodFactory(customer=customer)
    api_client.delete(_url(customer, gone))
    listed = api_client.get(_url(customer)).json()["data"]["paymentMethods"]
    assert [m["paymentMethodUuid"] for m in listed] == [str(mine.uuid)]


def test_list_of_unknown_or_foreign_customer_is_404(api_client, other_company):
    foreign = CustomerFactory(company=other_company)
    PaymentMethodFactory(customer=foreign)
    for customer in (foreign, CustomerFactory.build()):
        response = api_client.get(_url(customer))
        assert response.status_code == 404
        assert response.json()["message"] == "Customer not found"


# Single method


def test_get_one_method_is_the_method_object(api_client, customer):
    method = PaymentMethodFactory(customer=customer, account_number="11112222", account_type="Savings")
    response = api_client.get(_url(customer, method))
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["paymentMethodUuid"] == str(method.uuid)
    assert data["accountNumber"] == "11112222" and data["routingNumber"] == ROUTING
    assert data["displayName"] == "Savings ****2222"


def test_unknown_method_is_404_payment_method_not_found(api_client, customer):
    response = api_client.get(f"{_url(customer)}/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.json()["message"] == "Payment method not found"


def test_method_of_another_customer_of_same_company_is_404(api_client, customer, company):
    sibling_method = PaymentMethodFactory(customer=CustomerFactory(company=company))
    for suffix, verb in (("", "get"), ("", "delete"), ("/set-default", "post")):
        response = getattr(api_client, verb)(_url(customer, sibling_method, suffix))
        assert response.status_code == 404
        assert response.json()["message"] == "Payment method not found"
    sibling_method.refresh_from_db()
    assert sibling_method.deleted_at is None


def test_other_companys_method_is_404_as_if_absent(api_client, other_company):
    foreign_method = PaymentMethodFactory(customer=CustomerFactory(company=other_company))
    response = api_client.get(_url(foreign_method.customer, foreign_method))
    absent = api_client.get(f"/customers/{uuid.uuid4()}/payment-methods/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.json() == absent.json()


def test_deleted_method_is_404(api_client, customer):
    method = PaymentMethodFactory(customer=customer)
    assert api_client.delete(_url(customer, method)).status_code == 204
    assert api_client.get(_url(customer, method)).status_code == 404
    assert api_client.delete(_url(customer, method)).status_code == 404


# set-default


def test_set_default_moves_the_default(api_client, customer):
    first = PaymentMethodFactory(customer=customer, is_default=True)
    second = PaymentMethodFactory(customer=customer)
    response = api_client.post(_url(customer, second, "/set-default"))
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data["paymentMethodUuid"] == str(second.uuid) and data["isDefault"] is True
    first.refresh_from_db()
    assert not first.is_default
    assert api_client.get(f"/customers/{customer.uuid}").json()["data"]["defaultPaymentMethod"] == str(second.uuid)


def test_set_default_on_the_default_is_200(api_client, customer):
    method = PaymentMethodFactory(customer=customer, is_default=True)
    response = api_client.post(_url(customer, method, "/set-default"))
    assert response.status_code == 200
    assert response.json()["data"]["isDefault"] is True


def test_set_default_with_a_body_field_is_400(api_client, customer):
    method = PaymentMethodFactory(customer=customer)
    assert api_client.post(_url(customer, method, "/set-default"), {"x": 1}, format="json").status_code == 400


def test_set_default_on_foreign_customer_is_404(api_client, other_company):
    foreign_method = PaymentMethodFactory(customer=CustomerFactory(company=other_company))
    response = api_client.post(_url(foreign_method.customer, foreign_method, "/set-default"))
    assert response.status_code == 404
    assert response.json()["message"] == "Customer not found"


# delete


def test_delete_keeps_the_row_and_hands_default_to_newest(api_client, customer):
    oldest = PaymentMethodFactory(customer=customer)
    newest = PaymentMethodFactory(customer=customer)
    default = PaymentMethodFactory(customer=customer, is_default=True)
    PaymentMethod.objects.filter(pk=newest.pk).update(created_at=default.created_at)  # tie: the higher id wins
    response = api_client.delete(_url(customer, default))
    assert response.status_code == 204
    assert response.content == b""
    default.refresh_from_db()
    assert default.deleted_at is not None and not default.is_default
    oldest.refresh_from_db()
    newest.refresh_from_db()
    assert newest.is_default and not oldest.is_default


def test_delete_of_non_default_leaves_default(api_client, customer):
    default = PaymentMethodFactory(customer=customer, is_default=True)
    other = PaymentMethodFactory(customer=customer)
    api_client.delete(_url(customer, other))
    default.refresh_from_db()
    assert default.is_default


def test_delete_last_method_leaves_no_default(api_client, customer):
    only = PaymentMethodFactory(customer=customer, is_default=True)
    api_client.delete(_url(customer, only))
    assert not PaymentMethod.objects.filter(is_default=True).exists()


def test_delete_foreign_method_is_404_and_keeps_it(api_client, other_company):
    foreign_method = PaymentMethodFactory(customer=CustomerFactory(company=other_company))
    assert api_client.delete(_url(foreign_method.customer, foreign_method)).status_code == 404
    foreign_method.refresh_from_db()
    assert foreign_method.deleted_at is None


# denial


@pytest.mark.parametrize(("verb", "suffix"), [("get", None), ("get", ""), ("delete", ""), ("post", "/set-default")])
def test_without_credentials_is_401(anonymous_client, customer, verb, suffix):
    method = PaymentMethodFactory(customer=customer)
    url = _url(customer) if suffix is None else _url(customer, method, suffix)
    assert getattr(anonymous_client, verb)(url).status_code == 401


@pytest.mark.parametrize(
    ("verb", "suffix", "action"),
    [
        ("get", None, Action.VIEW_PAYMENT_METHODS),
        ("get", "", Action.VIEW_PAYMENT_METHODS),
        ("delete", "", Action.MANAGE_PAYMENT_METHODS),
        ("post", "/set-default", Action.MANAGE_PAYMENT_METHODS),
    ],
)
def test_without_the_action_is_403(api_client, customer, verb, suffix, action):
    method = PaymentMethodFactory(customer=customer)
    ActionGroup.objects.update_or_create(
        name=LIVE_API_KEY_GROUP, defaults={"actions": [a for a in Action.values if a != action]}
    )
    clear_action_group_cache()
    url = _url(customer) if suffix is None else _url(customer, method, suffix)
    assert getattr(api_client, verb)(url).status_code == 403
    method.refresh_from_db()
    assert method.deleted_at is None
