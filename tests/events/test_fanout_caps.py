"""N5: caps on webhook fan-out. Endpoints per company and distinct URLs, deliveries made by the worker (not in
the charge's transaction), one replay in flight per endpoint and a daily replay budget."""

from __future__ import annotations

import pytest

from events.delivery import deliveries_run
from events.models import Delivery, Event
from events.outbox import event_record
from tests import factories

pytestmark = pytest.mark.django_db

LIST = "/webhooks/endpoints"


def _create(client, url, event_types=("*",)):
    return client.post(LIST, {"url": url, "eventTypes": list(event_types)}, format="json")


def _error(response) -> tuple[int, str]:
    return response.status_code, response.json()["errors"][0]["code"]


def test_a_company_has_at_most_the_endpoint_cap_and_a_deleted_one_frees_a_place(api_client, receiver, settings):
    settings.WEBHOOK_ENDPOINTS_PER_COMPANY = 3
    made = [_create(api_client, f"{receiver.url}/{n}").json()["data"]["uuid"] for n in range(3)]

    refused = _create(api_client, f"{receiver.url}/3")

    assert _error(refused) == (409, "endpoint_limit_reached")
    assert "at most 3" in refused.json()["message"]
    assert api_client.delete(f"{LIST}/{made[0]}").status_code == 204
    assert _create(api_client, f"{receiver.url}/3").status_code == 201


def test_the_default_cap_is_16(settings):
    assert settings.WEBHOOK_ENDPOINTS_PER_COMPANY == 16


def test_one_url_is_one_endpoint_per_company(api_client, other_api_client, receiver):
    first = _create(api_client, receiver.url).json()["data"]["uuid"]
    second = _create(api_client, receiver.url + "/b").json()["data"]["uuid"]

    assert _error(_create(api_client, receiver.url)) == (409, "endpoint_url_exists")
    moved = api_client.patch(f"{LIST}/{second}", {"url": receiver.url}, format="json")
    assert _error(moved) == (409, "endpoint_url_exists")
    assert api_client.patch(f"{LIST}/{first}", {"url": receiver.url}, format="json").status_code == 200  # its own
    assert _create(other_api_client, receiver.url).status_code == 201  # another company's is its own business


def test_a_charge_writes_its_event_and_the_worker_makes_the_deliveries(api_client, company, receiver):
    for n in range(3):
        _create(api_client, f"{receiver.url}/{n}", ["transaction.*"])
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    charge = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1500,
        "customerUuid": str(customer.uuid),
        "paymentMethodUuid": str(method.uuid),
        "paymentDetails": {
            "name": "Ada Lovelace",
            "accountType": "Checking",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
    }

    response = api_client.put("/transactions", charge, format="json")

    assert response.status_code == 201, response.content
    created = Event.objects.get(type="transaction.created")
    assert created.fanout_pending and not Delivery.objects.exists()  # nothing fanned out inside the charge
    deliveries_run()
    assert sorted(request.path for request in receiver.received) == ["/hooks/0", "/hooks/1", "/hooks/2"]
    created.refresh_from_db()
    assert not created.fanout_pending


def test_an_event_of_a_company_without_endpoints_needs_no_fan_out(company):
    event = event_record(company_id=company.pk, type="customer.updated", object_uuid=company.uuid, data={})
    assert not event.fanout_pending and not Event.objects.get(pk=event.pk).fanout_pending


def _two_events(company):
    owner = factories.CustomerFactory(company=company)
    return [
        event_record(company_id=company.pk, type="customer.updated", object_uuid=owner.uuid, data={"n": n})
        for n in range(2)
    ]


def test_one_replay_in_flight_per_endpoint(api_client, company, receiver):
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    events = _two_events(company)
    deliveries_run()
    replay = {"eventIds": [str(event.uuid) for event in events]}

    assert api_client.post(f"{LIST}/{uuid}/replay", replay, format="json").status_code == 202
    refused = api_client.post(f"{LIST}/{uuid}/replay", replay, format="json")

    assert _error(refused) == (409, "replay_in_flight")
    deliveries_run()
    assert len(receiver.received) == 4
    assert api_client.post(f"{LIST}/{uuid}/replay", replay, format="json").status_code == 202  # done: allowed


def test_a_company_replays_at_most_its_daily_budget(api_client, company, receiver, settings):
    settings.WEBHOOK_REPLAY_EVENTS_PER_DAY = 3
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    events = _two_events(company)
    deliveries_run()
    both = {"eventIds": [str(event.uuid) for event in events]}

    assert api_client.post(f"{LIST}/{uuid}/replay", both, format="json").status_code == 202
    deliveries_run()
    refused = api_client.post(f"{LIST}/{uuid}/replay", both, format="json")

    assert _error(refused) == (429, "replay_budget_exhausted")
    assert 0 < int(refused["Retry-After"]) <= 24 * 3600 + 1
    assert "1 left" in refused.json()["message"]
    one = {"eventIds": [str(events[0].uuid)]}
    assert api_client.post(f"{LIST}/{uuid}/replay", one, format="json").status_code == 202
