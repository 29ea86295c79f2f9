from __future__ import annotations

import pytest

from accounts.actions import LIVE_API_KEY_GROUP, Action
from accounts.models import ActionGroup
from accounts.selectors import clear_action_group_cache
from customers.models import Customer

pytestmark = pytest.mark.django_db

PERSON = {"firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.com"}


def test_create_customer_is_201_with_spec_fields(api_client, company):
    response = api_client.post("/customers", PERSON, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "success"
    data = body["data"]
    assert set(data) == {"companyUuid", "customerUuid", "firstName", "lastName", "status"}
    assert data["companyUuid"] == str(company.uuid)
    assert (data["firstName"], data["lastName"], data["status"]) == ("Ada", "Lovelace", "active")
    stored = Customer.objects.get(uuid=data["customerUuid"])
    assert stored.company == company and stored.email == "ada@example.com"


def test_every_accepted_field_is_stored(api_client):
    body = {
        "firstName": "Ada",
        "lastName": "Lovelace",
        "email": "ada@example.com",
        "phone": "+14155550100",
        "companyName": "Analytical Engines",
        "accountHolderType": "consumer",
        "customerId": "crm-42",
    }
    response = api_client.post("/customers", body, format="json")
    assert response.status_code == 201, response.content
    read = api_client.get(f"/customers/{response.json()['data']['customerUuid']}").json()["data"]
    for key, value in body.items():
        assert read[key] == value


def test_repeating_a_create_makes_a_second_customer(api_client):
    first = api_client.post("/customers", PERSON | {"customerId": "c1"}, format="json").json()["data"]
    second = api_client.post("/customers", PERSON | {"customerId": "c1"}, format="json").json()["data"]
    assert first["customerUuid"] != second["customerUuid"]
    assert Customer.objects.filter(customer_id="c1").count() == 2


def test_organization_with_company_name_is_created(api_client):
    response = api_client.post(
        "/customers", {"accountHolderType": "organization", "companyName": "Acme"}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["data"]["firstName"] is None


def test_company_name_alone_infers_organization(api_client):
    response = api_client.post("/customers", {"companyName": "Acme"}, format="json")
    assert response.status_code == 201
    customer = Customer.objects.get(uuid=response.json()["data"]["customerUuid"])
    assert customer.account_holder_type == "organization"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"accountHolderType": "organization", "firstName": "Ada", "lastName": "L"}, "companyName"),
        ({"accountHolderType": "organization", "companyName": ""}, "companyName"),
        ({"firstName": "Ada"}, None),
        ({"lastName": "Lovelace"}, None),
        ({}, None),
        ({"accountHolderType": "consumer", "companyName": "Acme"}, "firstName"),
        ({"email": "ada@example.com"}, None),
    ],
)
def test_holder_rules_are_400_and_store_nothing(api_client, body, field):
    response = api_client.post("/customers", body, format="json")
    assert response.status_code == 400, response.content
    error = response.json()
    assert error["status"] == "error" and error["data"] is None
    assert error["errors"][0]["field"] == field
    assert not Customer.objects.exists()


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ({"email": "not-an-email"}, "email"),
        ({"phone": "555-0100"}, "phone"),
        ({"phone": "12"}, "phone"),
        ({"phone": 14155550100}, "phone"),
        ({"firstName": 7}, "firstName"),
        ({"accountHolderType": "robot"}, "accountHolderType"),
        ({"accountHolderType": 1}, "accountHolderType"),
        ({"customerId": ["x"]}, "customerId"),
        ({"nickname": "x"}, "nickname"),
        ({"status": "inactive"}, "status"),
        ({"firstName": "x" * 101}, "firstName"),
    ],
)
def test_bad_fields_are_400_naming_the_field(api_client, extra, field):
    response = api_client.post("/customers", PERSON | extra, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field
    assert not Customer.objects.exists()


@pytest.mark.parametrize("raw", ["{not json", "[1, 2]", '"text"', "null"])
def test_malformed_bodies_are_400(api_client, raw):
    response = api_client.generic("POST", "/customers", raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["status"] == "error"


def test_create_without_credentials_is_401(anonymous_client):
    response = anonymous_client.post("/customers", PERSON, format="json")
    assert response.status_code == 401
    assert response.json()["status"] == "error"


def test_create_without_the_action_is_403(api_client):
    actions = [a for a in Action.values if a != Action.CREATE_CUSTOMER]
    ActionGroup.objects.update_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": actions})
    clear_action_group_cache()
    response = api_client.post("/customers", PERSON, format="json")
    assert response.status_code == 403
    assert not Customer.objects.exists()


def test_staged_rollout_key_without_flag_is_403(api_client, company):
    company.staged_rollout = True
    company.save()
    assert api_client.post("/customers", PERSON, format="json").status_code == 403


def test_person_field_sent_as_null_answers_as_if_left_out(api_client):
    without = {key: value for key, value in PERSON.items() if key != "lastName"}
    left_out = api_client.post("/customers", without, format="json")
    sent_null = api_client.post("/customers", without | {"lastName": None}, format="json")
    assert left_out.status_code == sent_null.status_code == 400
    assert sent_null.json() == left_out.json()
    assert not Customer.objects.exists()
