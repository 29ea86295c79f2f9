"""GET /events (filters, cursor pagination, newest first) and GET /events/{id} with its attempts."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from events.delivery import deliveries_run
from events.models import Event
from events.outbox import event_record
from tests import factories
from tests.events.conftest import wire_body

pytestmark = pytest.mark.django_db


def _record(company, type="customer.updated", object_uuid=None):
    object_uuid = object_uuid or factories.CustomerFactory(company=company).uuid
    return event_record(company_id=company.pk, type=type, object_uuid=object_uuid, data={"n": 1})


def test_list_is_newest_first_with_a_cursor_to_the_end(api_client, company):
    events = [_record(company) for _ in range(5)]
    seen, cursor = [], None
    while True:
        response = api_client.get("/events", {"pageSize": 2, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.content
        body = response.json()
        seen += [row["id"] for row in body["data"]]
        cursor = body["meta"]["nextCursor"]
        if cursor is None:
            break
    assert seen == [str(event.uuid) for event in reversed(events)]


def test_list_rows_are_event_bodies(api_client, company):
    event = _record(company)
    (row,) = api_client.get("/events").json()["data"]
    assert row == wire_body(event, company)


def test_filters_by_type_object_and_time(api_client, company):
    owner = factories.CustomerFactory(company=company)
    old = _record(company, "customer.created", owner.uuid)
    Event.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=3))
    updated = _record(company, "customer.updated", owner.uuid)
    other = _record(company, "customer.updated")

    def ids(**params):
        return [row["id"] for row in api_client.get("/events", params).json()["data"]]

    assert ids(type="customer.updated") == [str(other.uuid), str(updated.uuid)]
    assert ids(objectUuid=str(owner.uuid)) == [str(updated.uuid), str(old.uuid)]
    assert ids(since=(timezone.now() - timedelta(days=1)).isoformat()) == [str(other.uuid), str(updated.uuid)]
    assert ids(until=(timezone.now() - timedelta(days=2)).isoformat()) == [str(old.uuid)]


@pytest.mark.parametrize(
    "params",
    [
        {"type": "customer.exploded"},
        {"objectUuid": "nope"},
        {"since": "yesterday"},
        {"cursor": "garbage"},
        {"pageSize": "0"},
        {"pageSize": "5000"},
        {"colour": "blue"},
    ],
)
def test_bad_query_parameters_are_400(api_client, company, params):
    response = api_client.get("/events", params)
    assert response.status_code == 400, response.content
    assert response.json()["status"] == "error"


def test_another_companys_events_are_invisible(api_client, other_company):
    foreign = _record(other_company)
    assert api_client.get("/events").json()["data"] == []
    assert api_client.get(f"/events/{foreign.uuid}").status_code == 404


def test_detail_lists_every_attempt(api_client, company, endpoint, receiver, no_retry_wait):
    receiver.answer(500)
    event = _record(company)
    deliveries_run()

    response = api_client.get(f"/events/{event.uuid}")

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["id"] == str(event.uuid) and data["sequence"] == 1
    attempts = data["attempts"]
    assert [attempt["statusCode"] for attempt in attempts] == [500, 200]
    assert {attempt["endpointUuid"] for attempt in attempts} == {str(endpoint.uuid)}
    assert all(attempt["durationMs"] >= 0 and attempt["attemptedAt"].endswith("Z") for attempt in attempts)
    assert [attempt["error"] for attempt in attempts] == ["http_status", None]


def test_unknown_event_is_404(api_client):
    response = api_client.get("/events/00000000-0000-0000-0000-000000000000")
    assert response.status_code == 404
    assert response.json()["message"] == "Event not found"


def test_purge_deletes_events_past_the_retention(company, endpoint, receiver):
    from tests.transactions.ach.conftest import run

    old, fresh = _record(company), _record(company)
    deliveries_run()
    Event.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=31))

    assert run("purge_events") == {"events": 1, "taskResults": 0}
    assert list(Event.objects.values_list("pk", flat=True)) == [fresh.pk]
    assert run("purge_events") == {"events": 0, "taskResults": 0}


def test_one_waiting_wake_up_is_enough_and_finished_ones_are_purged(db):
    from django_tasks_db.models import DBTaskResult

    from events.tasks import deliver_webhooks_soon
    from tests.transactions.ach.conftest import run

    deliver_webhooks_soon()
    deliver_webhooks_soon()
    assert DBTaskResult.objects.count() == 1
    deliver_webhooks_soon(at=timezone.now() + timedelta(minutes=5))  # a retry's wake-up is its own row
    assert DBTaskResult.objects.count() == 2

    # The ready one ran two days ago (as a worker would have left it).
    DBTaskResult.objects.ready().update(status="SUCCESSFUL", finished_at=timezone.now() - timedelta(days=2))
    assert run("purge_events") == {"events": 0, "taskResults": 1}
    assert DBTaskResult.objects.count() == 1
