from __future__ import annotations

import uuid

import pytest

from customers.models import Customer
from tests.factories import CustomerFactory, PaymentMethodFactory, UserFactory, membership

pytestmark = pytest.mark.django_db


def test_get_customer_returns_spec_fields(api_client, company):
    customer = CustomerFactory(company=company, email="ada@example.com", customer_id="crm-1")
    response = api_client.get(f"/customers/{customer.uuid}")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["companyUuid"] == str(company.uuid)
    assert data["customerUuid"] == str(customer.uuid)
    assert (data["firstName"], data["lastName"]) == (customer.first_name, customer.last_name)
    assert data["email"] == "ada@example.com"
    assert data["accountHolderType"] == "consumer"
    assert data["customerId"] == "crm-1"
    assert data["status"] == "active"
    assert "defaultPaymentMethod" not in data


def test_get_customer_names_its_default_method(api_client, company):
    customer = CustomerFactory(company=company)
    PaymentMethodFactory(customer=customer, is_default=False)
    default = PaymentMethodFactory(customer=customer, is_default=True)
    data = api_client.get(f"/customers/{customer.uuid}").json()["data"]
    assert data["defaultPaymentMethod"] == str(default.uuid)


def test_deleted_default_is_not_named(api_client, company):
    customer = CustomerFactory(company=company)
    method = PaymentMethodFactory(customer=customer, is_default=True)
    api_client.delete(f"/customers/{customer.uuid}/payment-methods/{method.uuid}")
    assert "defaultPaymentMethod" not in api_client.get(f"/customers/{customer.uuid}").json()["data"]


def test_inactive_customer_is_returned_normally(api_client, company):
    customer = CustomerFactory(company=company, status="inactive")
    response = api_client.get(f"/customers/{customer.uuid}")
    assert response.status_code == 200
    assert response.json()["data"]["status"] == "inactive"


def test_unknown_customer_is_404_customer_not_found(api_client):
    response = api_client.get(f"/customers/{uuid.uuid4()}")
    assert response.status_code == 404
    body = response.json()
    assert body["message"] == "Customer not found"
    assert body["errors"] == [{"field": None, "code": "not_found", "message": "Customer not found"}]


def test_other_companys_customer_is_404_exactly_as_if_absent(api_client, other_company):
    foreign = CustomerFactory(company=other_company)
    response = api_client.get(f"/customers/{foreign.uuid}")
    absent = api_client.get(f"/customers/{uuid.uuid4()}")
    assert response.status_code == absent.status_code == 404
    assert response.json() == absent.json()


def test_bad_uuid_in_path_is_404_envelope(api_client):
    response = api_client.get("/customers/not-a-uuid")
    assert response.status_code == 404
    assert response.json()["status"] == "error"


def test_get_without_credentials_is_401(anonymous_client, company):
    customer = CustomerFactory(company=company)
    assert anonymous_client.get(f"/customers/{customer.uuid}").status_code == 401


def test_bearer_user_reads_with_entity_uuid(anonymous_client, company):
    user = UserFactory()
    membership(user, company, "support")
    customer = CustomerFactory(company=company)
    token = anonymous_client.post(
        "/auth/login", {"email": user.email, "password": "correct horse battery"}, format="json"
    ).json()["data"]["accessToken"]
    anonymous_client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert anonymous_client.get(f"/customers/{customer.uuid}?entityUuid={company.uuid}").status_code == 200
    # The support role has no CreateCustomer.
    created = anonymous_client.post(
        f"/customers?entityUuid={company.uuid}", {"firstName": "A", "lastName": "B"}, format="json"
    )
    assert created.status_code == 403


# PATCH


def test_patch_deactivates_and_returns_the_customer(api_client, company):
    customer = CustomerFactory(company=company)
    response = api_client.patch(f"/customers/{customer.uuid}", {"status": "inactive"}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["data"]["status"] == "inactive"
    assert response.json()["data"]["customerUuid"] == str(customer.uuid)
    customer.refresh_from_db()
    assert customer.status == "inactive"


def test_patch_reactivates(api_client, company):
    customer = CustomerFactory(company=company, status="inactive")
    response = api_client.patch(f"/customers/{customer.uuid}", {"status": "active"}, format="json")
    assert response.json()["data"]["status"] == "active"


def test_patch_updates_contact_fields_and_records_history(api_client, company):
    customer = CustomerFactory(company=company)
    response = api_client.patch(
        f"/customers/{customer.uuid}", {"email": "new@example.com", "phone": "4155550100"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["data"]["email"] == "new@example.com"
    assert response.json()["data"]["phone"] == "4155550100"
    latest = customer.history.latest()
    assert latest.email == "new@example.com" and latest.history_type == "~"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"status": "closed"}, "status"),
        ({"status": False}, "status"),
        ({"email": "nope"}, "email"),
        ({"uuid": str(uuid.uuid4())}, "uuid"),
        ({"companyUuid": str(uuid.uuid4())}, "companyUuid"),
        ({"firstName": ""}, "firstName"),
    ],
)
def test_patch_bad_input_is_400_and_changes_nothing(api_client, company, body, field):
    customer = CustomerFactory(company=company)
    response = api_client.patch(f"/customers/{customer.uuid}", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field
    assert Customer.objects.get(pk=customer.pk).first_name == customer.first_name
    assert Customer.objects.get(pk=customer.pk).status == "active"


def test_patch_organization_cannot_drop_company_name(api_client, company):
    customer = CustomerFactory(company=company, account_holder_type="organization", company_name="Acme")
    response = api_client.patch(f"/customers/{customer.uuid}", {"companyName": ""}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "companyName"


def test_patch_other_companys_customer_is_404(api_client, other_company):
    foreign = CustomerFactory(company=other_company)
    response = api_client.patch(f"/customers/{foreign.uuid}", {"status": "inactive"}, format="json")
    assert response.status_code == 404
    assert response.json()["message"] == "Customer not found"
    foreign.refresh_from_db()
    assert foreign.status == "active"


def test_patch_without_credentials_is_401(anonymous_client, company):
    customer = CustomerFactory(company=company)
    response = anonymous_client.patch(f"/customers/{customer.uuid}", {"status": "inactive"}, format="json")
    assert response.status_code == 401


def test_patch_with_null_fields_changes_nothing_they_name(api_client, company):
    customer = CustomerFactory(company=company, email="ada@example.com", first_name="Ada")
    body = {"email": None, "firstName": None, "status": None, "lastName": "Byron"}
    response = api_client.patch(f"/customers/{customer.uuid}", body, format="json")
    assert response.status_code == 200, response.content
    customer.refresh_from_db()
    assert (customer.email, customer.first_name, customer.last_name, customer.status) == (
        "ada@example.com",
        "Ada",
        "Byron",
        "active",
    )


def test_create_with_null_optional_fields_is_201(api_client):
    body = {"firstName": "Ada", "lastName": "Lovelace", "email": None, "phone": None, "accountHolderType": None}
    response = api_client.post("/customers", body, format="json")
    assert response.status_code == 201, response.content
    assert Customer.objects.get(uuid=response.json()["data"]["customerUuid"]).account_holder_type == "consumer"
