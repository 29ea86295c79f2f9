"""POST/GET/PATCH/DELETE /webhooks/endpoints, rotate-secret and replay through real requests."""

from __future__ import annotations

import pytest
from standardwebhooks import Webhook

from events.delivery import deliveries_run
from events.models import Delivery, WebhookEndpoint
from events.outbox import event_record
from tests import factories
from tests.accounts.conftest import bearer_client

pytestmark = pytest.mark.django_db

LIST = "/webhooks/endpoints"


def _create(client, url, event_types=("*",), **extra):
    return client.post(LIST, {"url": url, "eventTypes": list(event_types), **extra}, format="json")


def test_create_answers_the_secret_once_in_whsec_form(api_client, receiver):
    response = _create(api_client, receiver.url, ["transaction.*", "customer.created"], description="ops")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert set(data) >= {"uuid", "url", "eventTypes", "enabled", "secret", "createdAt"}
    assert data["secret"].startswith("whsec_")
    Webhook(data["secret"])  # the library accepts it as a secret
    assert (data["url"], data["eventTypes"], data["enabled"]) == (
        receiver.url,
        ["transaction.*", "customer.created"],
        True,
    )
    listed = api_client.get(LIST).json()["data"]
    assert [item["uuid"] for item in listed] == [data["uuid"]]
    assert "secret" not in listed[0]
    assert "secret" not in api_client.get(f"{LIST}/{data['uuid']}").json()["data"]


def test_the_secret_is_encrypted_at_rest(api_client, receiver):
    secret = _create(api_client, receiver.url).json()["data"]["secret"]
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT secret FROM events_webhookendpoint")
        (raw,) = cursor.fetchone()
    assert secret not in raw and "whsec_" not in raw


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://127.0.0.1/hook", "private"),
        ("https://10.1.2.3/hook", "private"),
        ("https://192.168.0.10/hook", "private"),
        ("https://169.254.169.254/latest/meta-data", "private"),
        ("https://[::1]/hook", "private"),
        ("https://[::ffff:127.0.0.1]/hook", "private"),
        ("https://0.0.0.0/hook", "private"),
        ("https://240.0.0.1/hook", "private"),
        ("http://93.184.216.34/hook", "https"),
        ("ftp://93.184.216.34/hook", "https"),
        ("https://user:pw@93.184.216.34/hook", "credentials"),
        ("not a url", "https"),
        ("https://no-such-host.invalid/hook", "resolve"),
        # N9: ranges Python 3.11's is_global lets through, and ports other than 443/8443
        ("https://[2002:a9fe:a9fe::]/", "private"),  # 6to4 of 169.254.169.254
        ("https://[2002:7f00:1::]/", "private"),  # 6to4 of 127.0.0.1
        ("https://[64:ff9b::5db8:d822]/", "private"),  # NAT64 of a public address
        ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "private"),  # Teredo
        ("https://192.0.0.192/", "private"),
        ("https://198.18.0.1/", "private"),
        ("https://93.184.216.34:6379/", "port"),
        ("https://93.184.216.34:22/", "port"),
    ],
)
def test_unsafe_urls_are_refused_without_the_private_url_setting(api_client, settings, url, reason):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    response = _create(api_client, url)
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == ("url", "unsafe_url")
    assert reason in error["message"]
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize("port", ["", ":443", ":8443"])
def test_https_on_443_or_8443_is_accepted(api_client, settings, port):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    assert _create(api_client, f"https://93.184.216.34{port}/hook").status_code == 201


def test_a_public_https_address_is_accepted(api_client, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    assert _create(api_client, "https://93.184.216.34/hook").status_code == 201


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "http://127.0.0.1/x", "eventTypes": ["transaction.exploded"]}, "eventTypes"),
        ({"url": "http://127.0.0.1/x", "eventTypes": []}, "eventTypes"),
        ({"url": "http://127.0.0.1/x", "eventTypes": "*"}, "eventTypes"),
        ({"url": "http://127.0.0.1/x"}, "eventTypes"),
        ({"eventTypes": ["*"]}, "url"),
        ({"url": 5, "eventTypes": ["*"]}, "url"),
        ({"url": "http://127.0.0.1/x", "eventTypes": ["*"], "secret": "whsec_mine"}, "secret"),
    ],
)
def test_bad_bodies_are_400_naming_the_field(api_client, receiver, body, field):
    response = api_client.post(LIST, body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field
    assert not WebhookEndpoint.objects.exists()


def test_malformed_json_is_400(api_client):
    response = api_client.generic("POST", LIST, "{nope", content_type="application/json")
    assert response.status_code == 400


def test_patch_changes_url_types_and_enabled(api_client, receiver):
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    response = api_client.patch(
        f"{LIST}/{uuid}", {"eventTypes": ["customer.*"], "enabled": False, "url": receiver.url + "/v2"}, format="json"
    )
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["eventTypes"], data["enabled"], data["url"]) == (["customer.*"], False, receiver.url + "/v2")
    assert data["disabledReason"] == "disabled by the merchant"
    again = api_client.patch(f"{LIST}/{uuid}", {"enabled": True}, format="json").json()["data"]
    assert again["enabled"] is True and again["disabledReason"] is None


def test_patch_refuses_an_unsafe_url(api_client, receiver, settings):
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    response = api_client.patch(f"{LIST}/{uuid}", {"url": "https://10.0.0.1/"}, format="json")
    assert response.status_code == 400
    assert WebhookEndpoint.objects.get().url == receiver.url


def test_delete_is_204_and_then_404(api_client, receiver):
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    assert api_client.delete(f"{LIST}/{uuid}").status_code == 204
    assert api_client.get(f"{LIST}/{uuid}").status_code == 404
    assert api_client.get(LIST).json()["data"] == []


def test_rotate_secret_answers_the_new_secret_once(api_client, receiver):
    created = _create(api_client, receiver.url).json()["data"]
    response = api_client.post(f"{LIST}/{created['uuid']}/rotate-secret")
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data["secret"].startswith("whsec_") and data["secret"] != created["secret"]
    assert data["previousSecretExpiresAt"]


def test_another_companys_endpoint_is_404_everywhere(api_client, other_api_client, receiver):
    uuid = _create(other_api_client, receiver.url).json()["data"]["uuid"]
    assert api_client.get(f"{LIST}/{uuid}").status_code == 404
    assert api_client.patch(f"{LIST}/{uuid}", {"enabled": False}, format="json").status_code == 404
    assert api_client.delete(f"{LIST}/{uuid}").status_code == 404
    assert api_client.post(f"{LIST}/{uuid}/rotate-secret").status_code == 404
    assert api_client.post(f"{LIST}/{uuid}/replay", {"eventIds": []}, format="json").status_code == 404
    assert api_client.get(LIST).json()["data"] == []
    assert WebhookEndpoint.objects.get().enabled


@pytest.mark.parametrize(("role", "allowed"), [("admin", True), ("support", False), ("reporting", False)])
def test_webhook_and_event_routes_follow_the_role(company, receiver, role, allowed):
    user = factories.UserFactory()
    factories.membership(user, company, role)
    client = bearer_client(user)
    entity = f"?entityUuid={company.uuid}"
    assert client.post(LIST + entity, {"url": receiver.url, "eventTypes": ["*"]}, format="json").status_code == (
        201 if allowed else 403
    )
    assert client.get(LIST + entity).status_code == (200 if allowed else 403)
    assert client.get("/events" + entity).status_code == (200 if allowed else 403)


def test_replay_by_ids_sends_the_events_again(api_client, company, receiver):
    created = _create(api_client, receiver.url).json()["data"]
    owner = factories.CustomerFactory(company=company)
    first = event_record(company_id=company.pk, type="customer.updated", object_uuid=owner.uuid, data={})
    event_record(company_id=company.pk, type="customer.updated", object_uuid=owner.uuid, data={})
    deliveries_run()
    assert len(receiver.received) == 2

    response = api_client.post(f"{LIST}/{created['uuid']}/replay", {"eventIds": [str(first.uuid)]}, format="json")

    assert response.status_code == 202, response.content
    assert response.json()["data"] == {"replayed": 1}
    deliveries_run()
    assert len(receiver.received) == 3
    replayed = receiver.received[-1]
    assert Webhook(created["secret"]).verify(replayed.body, replayed.headers)["id"] == str(first.uuid)


def test_replay_by_time_range_sends_every_subscribed_event_in_it(api_client, company, receiver):
    from datetime import timedelta

    from django.utils import timezone

    from events.models import Event

    owner = factories.CustomerFactory(company=company)
    events = [
        event_record(company_id=company.pk, type=kind, object_uuid=owner.uuid, data={})
        for kind in ("customer.created", "customer.updated", "transaction.created")
    ]
    Event.objects.filter(pk=events[0].pk).update(created_at=timezone.now() - timedelta(days=2))
    created = _create(api_client, receiver.url, ["customer.*"]).json()["data"]  # subscribes after the events
    since = (timezone.now() - timedelta(days=1)).isoformat()
    until = (timezone.now() + timedelta(minutes=1)).isoformat()

    response = api_client.post(f"{LIST}/{created['uuid']}/replay", {"since": since, "until": until}, format="json")

    assert response.status_code == 202, response.content
    assert response.json()["data"] == {"replayed": 1}
    deliveries_run()
    assert [body["id"] for body in receiver.bodies()] == [str(events[1].uuid)]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"since": "2026-11-01T00:00:00Z"},
        {"eventIds": ["not-a-uuid"]},
        {"eventIds": [], "since": "2026-11-01T00:00:00Z", "until": "2026-11-02T00:00:00Z"},
        {"since": "2026-11-02T00:00:00Z", "until": "2026-11-01T00:00:00Z"},
        {"eventIds": "all"},
    ],
)
def test_bad_replay_bodies_are_400(api_client, receiver, body):
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    response = api_client.post(f"{LIST}/{uuid}/replay", body, format="json")
    assert response.status_code == 400, response.content
    assert not Delivery.objects.exists()


def test_replay_of_another_companys_event_is_404(api_client, other_company, receiver):
    uuid = _create(api_client, receiver.url).json()["data"]["uuid"]
    foreign = event_record(
        company_id=other_company.pk,
        type="customer.created",
        object_uuid=factories.CustomerFactory(company=other_company).uuid,
        data={},
    )
    response = api_client.post(f"{LIST}/{uuid}/replay", {"eventIds": [str(foreign.uuid)]}, format="json")
    assert response.status_code == 404
    assert not Delivery.objects.exists()


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "https://127.0.0.1/hook"])
def test_a_refused_local_url_says_how_development_allows_it(api_client, settings, url):
    """F16: the developer learns the switch from the error itself."""
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False
    error = _create(api_client, url).json()["errors"][0]
    assert error["code"] == "unsafe_url" and "WEBHOOK_ALLOW_PRIVATE_URLS=1" in error["message"]
