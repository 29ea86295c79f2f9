from __future__ import annotations

import pytest

from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(company, other_company):
    CustomerFactory(company=other_company, first_name="Ada", email="ada@example.com")
    return {
        "ada": CustomerFactory(company=company, first_name="Ada", last_name="Lovelace", email="Ada@Example.com"),
        "grace": CustomerFactory(company=company, first_name="Grace", last_name="Hopper", customer_id="crm-7"),
        "acme": CustomerFactory(
            company=company,
            first_name="",
            last_name="",
            company_name="Acme Adapters",
            account_holder_type="organization",
            status="inactive",
        ),
    }


def _uuids(response) -> set[str]:
    return {row["customerUuid"] for row in response.json()["data"]}


def test_list_defaults_to_page_zero_of_fifty_newest_first(api_client, people):
    response = api_client.get("/customers")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["errors"] is None
    assert body["meta"]["pagination"] == {"page": 0, "pageSize": 50, "totalFilteredRows": 3, "totalRows": 3}
    assert body["meta"]["version"] and body["meta"]["timestamp"].endswith("Z")
    assert [row["customerUuid"] for row in body["data"]] == [
        str(people["acme"].uuid),
        str(people["grace"].uuid),
        str(people["ada"].uuid),
    ]


def test_list_pages(api_client, people):
    first = api_client.get("/customers?page=0&pageSize=2").json()
    second = api_client.get("/customers?page=1&pageSize=2").json()
    assert len(first["data"]) == 2 and len(second["data"]) == 1
    assert _uuids_of(first) | _uuids_of(second) == {str(c.uuid) for c in people.values()}
    assert second["meta"]["pagination"] == {"page": 1, "pageSize": 2, "totalFilteredRows": 3, "totalRows": 3}


def _uuids_of(body) -> set[str]:
    return {row["customerUuid"] for row in body["data"]}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("email=ada@example.COM", {"ada"}),
        ("customerId=crm-7", {"grace"}),
        ("status=inactive", {"acme"}),
        ("status=active", {"ada", "grace"}),
        ("name=ADA", {"ada", "acme"}),
        ("name=hopp", {"grace"}),
        ("name=%25", set()),
        ("name=ada&status=active", {"ada"}),
    ],
)
def test_list_filters(api_client, people, query, expected):
    response = api_client.get(f"/customers?{query}")
    assert response.status_code == 200, response.content
    assert _uuids(response) == {str(people[name].uuid) for name in expected}
    assert response.json()["meta"]["pagination"]["totalFilteredRows"] == len(expected)
    assert response.json()["meta"]["pagination"]["totalRows"] == 3


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("colour=red", "colour"),
        ("status=closed", "status"),
        ("page=-1", "page"),
        ("pageSize=0", "pageSize"),
        ("pageSize=1001", "pageSize"),
        ("page=x", "page"),
    ],
)
def test_list_bad_query_is_400_naming_it(api_client, people, query, field):
    response = api_client.get(f"/customers?{query}")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == field


def test_unknown_filter_message(api_client):
    assert api_client.get("/customers?colour=red").json()["message"] == "invalid filter"


def test_list_with_entity_uuid_of_own_company(api_client, company, people):
    assert api_client.get(f"/customers?entityUuid={company.uuid}").status_code == 200


def test_list_shows_only_own_company(other_api_client, people):
    response = other_api_client.get("/customers")
    assert response.json()["meta"]["pagination"]["totalRows"] == 1


def test_list_without_credentials_is_401(anonymous_client):
    assert anonymous_client.get("/customers").status_code == 401


def test_page_past_the_end_is_empty_not_an_error(api_client, people):
    response = api_client.get("/customers?page=999999999&pageSize=1000")
    assert response.status_code == 200
    assert response.json()["data"] == []
    assert response.json()["meta"]["pagination"]["totalFilteredRows"] == 3


def test_overlong_filter_value_is_400(api_client):
    response = api_client.get("/customers", {"name": "x" * 256})
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "name"
