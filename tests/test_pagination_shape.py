"""F13: every list answers one pagination shape, `meta.pagination`, with `nextCursor` where a cursor applies. The
keys a list had before stay (the events list's `meta.nextCursor`, reporting's counts)."""

from __future__ import annotations

import pytest

from events.services import endpoint_create
from tests import factories
from tests.events.conftest import customer_event

pytestmark = pytest.mark.django_db

LISTS = {
    "customers": "/customers?page=0&pageSize=10",
    "reporting": "/reporting/transactions?page=0&pageSize=10",
    "events": "/events?pageSize=1",
    "webhook endpoints": "/webhooks/endpoints",
}


@pytest.fixture
def some_of_everything(company, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    factories.CustomerFactory(company=company)
    factories.TransactionFactory(company=company)
    endpoint_create(company=company, url="http://127.0.0.1:9/hook", event_types=["*"])
    customer_event(company)
    customer_event(company)


@pytest.mark.parametrize("name", LISTS)
def test_every_list_has_meta_pagination_with_its_page_size(api_client, some_of_everything, name):
    body = api_client.get(LISTS[name]).json()
    assert body["status"] == "success" and isinstance(body["data"], list) and body["data"]
    pagination = body["meta"]["pagination"]
    assert pagination["pageSize"] >= 1


@pytest.mark.parametrize("name", ["reporting", "events"])
def test_cursor_lists_give_the_next_cursor_in_meta_pagination(api_client, some_of_everything, name):
    body = api_client.get(LISTS[name]).json()
    assert "nextCursor" in body["meta"]["pagination"]


def test_the_events_list_keeps_its_own_next_cursor_key(api_client, some_of_everything):
    meta = api_client.get(LISTS["events"]).json()["meta"]
    assert meta["nextCursor"] and meta["nextCursor"] == meta["pagination"]["nextCursor"]
    second = api_client.get(f"/events?pageSize=1&cursor={meta['pagination']['nextCursor']}").json()
    assert second["data"] and second["meta"]["pagination"]["nextCursor"] is None


def test_webhook_endpoints_list_counts_its_rows(api_client, some_of_everything):
    pagination = api_client.get(LISTS["webhook endpoints"]).json()["meta"]["pagination"]
    assert (pagination["page"], pagination["totalRows"], pagination["totalFilteredRows"]) == (0, 1, 1)
