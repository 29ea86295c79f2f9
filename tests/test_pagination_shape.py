"""F13: every list answers one pagination shape, `meta.pagination` (page, pageSize, totalFilteredRows, totalRows),
with `nextCursor` where a cursor applies. The table below is every list route of the OpenAPI document: a new GET
route that is not a single object must be added to it (or to NOT_LISTS), so no list can slip out of the shape. The
keys a list had before stay (a customer's `data.paymentMethods`, the events list's `meta.nextCursor`)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.test import Client

from events.services import endpoint_create
from tests import factories
from tests.events.conftest import customer_event
from tests.mandates.conftest import mandate_created
from tests.schedules.test_schedules import schedule_created
from tests.transactions.conftest import bank_details, put_charge

pytestmark = pytest.mark.django_db

PAGINATION = {"page", "pageSize", "totalFilteredRows", "totalRows"}


@dataclass(frozen=True)
class ListRoute:
    url: str  # formatted with the fixture's objects
    cursor: bool = False  # nextCursor in meta.pagination, and the next page by `cursor`
    counted: bool = True  # the totals are numbers (events: null)
    data_key: str | None = None  # the rows under data[data_key] (SPEC's shape of that route)
    first_page_size: int | None = None  # the request's page size, when it asks for one


LISTS = {
    "customer_list": ListRoute("/customers?page=0&pageSize=1", first_page_size=1),
    "payment_method_list": ListRoute("/customers/{customer}/payment-methods", data_key="paymentMethods"),
    "event_list": ListRoute("/events?pageSize=1", cursor=True, counted=False, first_page_size=1),
    "reporting_transactions_get": ListRoute(
        "/reporting/transactions?page=0&pageSize=1", cursor=True, first_page_size=1
    ),
    "transaction_events_get": ListRoute("/transactions/{transaction}/events"),
    "webhook_endpoint_list": ListRoute("/webhooks/endpoints"),
    "mandate_list": ListRoute("/customers/{customer}/mandates", data_key="mandates"),
    "schedule_list": ListRoute("/schedules?page=0&pageSize=1", first_page_size=1),
}
# GET routes that are not a single object and still are no list: a report object, CSV, a file download.
NOT_LISTS = {
    "reporting_transactions_csv_get",
    "reporting_export_download",
    "risk_report_get",
    "risk_return_rates_get",
    "retry_policy_get",
    "balance_get",  # the company's balances, one object
    "mandate_proof",
    "mandate_proof_evidence",
}


@pytest.fixture
def some_of_everything(company, api_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    customer = factories.CustomerFactory(company=company)
    factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(company=company, customer=customer)
    mandate = mandate_created(api_client, method)["mandateUuid"]
    schedule_created(api_client, method, mandate)
    schedule_created(api_client, method, mandate, startDate="2031-03-01")
    endpoint_create(company=company, url="http://127.0.0.1:9/hook", event_types=["*"])
    charge = {"method": "ACH", "type": "Debit", "amount": 100, "paymentDetails": bank_details()}
    transaction = put_charge(api_client, charge).json()["data"]["uuid"]
    put_charge(api_client, {**charge, "amount": 200})
    customer_event(company)
    customer_event(company)
    return {"customer": customer.uuid, "transaction": transaction}


def _list_operations(schema: dict) -> set[str]:
    """GET operations whose path does not end in an object's id."""
    return {
        operations["get"]["operationId"]
        for path, operations in schema["paths"].items()
        if "get" in operations and not path.endswith("}") and not path.startswith("/api/")
    }


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return Client().get("/api/schema/", {"format": "json"}).json()


def test_the_table_holds_every_list_route_of_the_openapi_document(schema):
    assert _list_operations(schema) - NOT_LISTS == set(LISTS)


@pytest.mark.parametrize("operation", LISTS)
def test_every_list_documents_the_one_meta(schema, operation):
    found = [op for ops in schema["paths"].values() for op in ops.values() if op.get("operationId") == operation]
    body = found[0]["responses"]["200"]["content"]["application/json"]["schema"]
    meta = schema["components"]["schemas"][body["properties"]["meta"]["$ref"].rsplit("/", 1)[1]]
    pagination = meta["properties"]["pagination"]["properties"]
    assert PAGINATION <= set(pagination) and ("nextCursor" in pagination) == LISTS[operation].cursor


@pytest.mark.parametrize("operation", LISTS)
def test_every_list_answers_meta_pagination(api_client, some_of_everything, operation):
    route = LISTS[operation]
    response = api_client.get(route.url.format(**some_of_everything))
    assert response.status_code == 200, response.content
    body = response.json()
    rows = body["data"][route.data_key] if route.data_key else body["data"]
    pagination = body["meta"]["pagination"]
    assert rows and isinstance(rows, list) and body["errors"] is None and body["meta"]["timestamp"]
    assert set(pagination) - {"totalFilteredRowsIsLowerBound"} == PAGINATION | (
        {"nextCursor"} if route.cursor else set()
    )
    assert pagination["pageSize"] == (route.first_page_size or len(rows)) and len(rows) <= pagination["pageSize"]
    if route.counted:
        assert pagination["page"] == 0 and pagination["totalRows"] >= pagination["totalFilteredRows"] >= len(rows)
    else:
        assert pagination["page"] is None and pagination["totalRows"] is pagination["totalFilteredRows"] is None
    if route.cursor:
        assert pagination["nextCursor"]
        separator = "&" if "?" in route.url else "?"
        url = route.url.format(**some_of_everything).replace("page=0&", "")
        following = api_client.get(f"{url}{separator}cursor={pagination['nextCursor']}").json()
        following_rows = following["data"]
        assert following_rows and following_rows != rows and following["meta"]["pagination"]["page"] is None


def test_the_events_list_keeps_its_own_next_cursor_key(api_client, some_of_everything):
    meta = api_client.get(LISTS["event_list"].url).json()["meta"]
    assert meta["nextCursor"] and meta["nextCursor"] == meta["pagination"]["nextCursor"]


def test_a_whole_list_counts_its_rows_as_page_zero(api_client, some_of_everything):
    pagination = api_client.get(LISTS["webhook_endpoint_list"].url).json()["meta"]["pagination"]
    assert (pagination["page"], pagination["pageSize"], pagination["totalRows"], pagination["totalFilteredRows"]) == (
        0,
        1,
        1,
        1,
    )


def test_a_customer_without_methods_keeps_data_payment_methods_empty(api_client, company):
    customer = factories.CustomerFactory(company=company)
    body = api_client.get(f"/customers/{customer.uuid}/payment-methods").json()
    assert body["data"] == {"paymentMethods": []}
    assert body["meta"]["pagination"] == {"page": 0, "pageSize": 1, "totalFilteredRows": 0, "totalRows": 0}
