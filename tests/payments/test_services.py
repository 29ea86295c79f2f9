"""The plain functions charges and the demo call: same rules as the API, without HTTP."""

from __future__ import annotations

import uuid

import pytest

from customers.selectors import customer_get
from customers.services import customer_create, customer_deactivate
from payments.selectors import payment_method_get
from payments.services import payment_method_create, payment_method_delete, payment_method_set_default
from tests.factories import CustomerFactory
from tests.payments.conftest import ROUTING
from vault.errors import ApiError, Conflict, NotFound

pytestmark = pytest.mark.django_db


def _create(company, customer, **kwargs):
    defaults = {"account_type": "Checking", "account_number": "123456789", "routing_number": ROUTING}
    return payment_method_create(company=company, customer=customer, **(defaults | kwargs))


def test_customer_and_method_round_trip(company):
    customer = customer_create(company=company, first_name="Ada", last_name="Lovelace")
    assert customer_get(company=company, customer_uuid=customer.uuid).pk == customer.pk
    method = _create(company, customer, nickname="Main")
    assert method.is_default and method.last_four == "6789" and method.display_name == "Checking ****6789"
    found = payment_method_get(company=company, customer=customer, payment_method_uuid=method.uuid)
    assert found.account_number == "123456789"


def test_selectors_raise_spec_not_found(company, other_company):
    foreign = CustomerFactory(company=other_company)
    with pytest.raises(NotFound, match="^Customer not found$"):
        customer_get(company=company, customer_uuid=foreign.uuid)
    customer = CustomerFactory(company=company)
    foreign_method = _create(other_company, foreign)
    with pytest.raises(NotFound, match="^Payment method not found$"):
        payment_method_get(company=company, customer=customer, payment_method_uuid=foreign_method.uuid)
    with pytest.raises(NotFound, match="^Payment method not found$"):
        payment_method_get(company=company, customer=customer, payment_method_uuid=uuid.uuid4())


def test_method_create_refuses_a_customer_of_another_company(company, other_company):
    foreign = CustomerFactory(company=other_company)
    with pytest.raises(NotFound, match="Customer not found"):
        _create(company, foreign)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"account_number": "12 3456"}, "accountNumber"),
        ({"routing_number": "021000022"}, "routingNumber"),
        ({"account_type": "Brokerage"}, "accountType"),
        ({"method_type": "card"}, "type"),
    ],
)
def test_method_create_validates_like_the_api(company, kwargs, field):
    customer = CustomerFactory(company=company)
    with pytest.raises(ApiError) as excinfo:
        _create(company, customer, **kwargs)
    assert excinfo.value.errors[0]["field"] == field
    assert "12 3456" not in excinfo.value.message


def test_duplicate_conflict_names_existing(company):
    customer = CustomerFactory(company=company)
    first = _create(company, customer)
    with pytest.raises(Conflict) as excinfo:
        _create(company, customer, is_default=True)
    assert excinfo.value.data == {"paymentMethodUuid": str(first.uuid)}
    first.refresh_from_db()
    assert first.is_default


def test_set_default_and_delete(company):
    customer = CustomerFactory(company=company)
    first = _create(company, customer)
    second = _create(company, customer, account_number="99998888")
    payment_method_set_default(company=company, customer=customer, payment_method=second)
    first.refresh_from_db()
    assert not first.is_default
    payment_method_delete(company=company, customer=customer, payment_method=second)
    first.refresh_from_db()
    assert first.is_default


def test_deactivate_keeps_customer_readable(company):
    customer = customer_deactivate(customer=CustomerFactory(company=company))
    assert customer_get(company=company, customer_uuid=customer.uuid).status == "inactive"
