"""Delivery to a real receiver: Standard Webhooks signatures, retries, 410, Retry-After, rotation, SSRF."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from events.delivery import deliveries_run
from events.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint
from events.outbox import events_fan_out
from events.services import endpoint_create, endpoint_rotate_secret
from tests.events.conftest import customer_event, wire_body

pytestmark = pytest.mark.django_db


_event = customer_event


def test_delivered_body_verifies_with_the_standard_webhooks_library(company, endpoint, receiver):
    event = _event(company, name="Ada")

    assert deliveries_run() == 1

    (request,) = receiver.received
    verified = Webhook(endpoint.secret).verify(request.body, request.headers)
    assert verified == wire_body(event, company)
    assert (verified["sequence"], verified["data"]) == (1, {"name": "Ada"})
    assert request.headers["webhook-id"] == str(event.uuid)
    assert request.path == "/hooks"
    assert Delivery.objects.get().status == "delivered"


def test_a_tampered_body_or_another_secret_does_not_verify(company, endpoint, receiver):
    _event(company)
    deliveries_run()
    (request,) = receiver.received
    with pytest.raises(WebhookVerificationError):
        Webhook(endpoint.secret).verify(request.body.replace(b"customer", b"kustomer"), request.headers)
    other = endpoint_create(company=company, url=receiver.url + "/other", event_types=["transaction.*"])
    with pytest.raises(WebhookVerificationError):
        Webhook(other.secret).verify(request.body, request.headers)


def test_500_three_times_then_delivered_on_the_fourth_try(company, endpoint, receiver, no_retry_wait):
    receiver.answer(500, 500, 500)
    _event(company)

    deliveries_run()

    assert len(receiver.received) == 4
    assert len({request.headers["webhook-id"] for request in receiver.received}) == 1
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempt_count) == ("delivered", 4)
    codes = list(DeliveryAttempt.objects.order_by("id").values_list("status_code", flat=True))
    assert codes == [500, 500, 500, 200]
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None and endpoint.enabled


def test_a_failed_attempt_waits_for_the_backoff_schedule(company, endpoint, receiver, settings):
    receiver.answer(500)
    _event(company)
    before = timezone.now()

    deliveries_run()

    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempt_count) == ("pending", 1)
    first_delay = settings.WEBHOOK_RETRY_DELAYS[0]
    wait = (delivery.next_attempt_at - before).total_seconds()
    assert first_delay <= wait <= first_delay * 1.2 + 2
    assert deliveries_run() == 0  # not due yet: nothing sent
    assert len(receiver.received) == 1


def test_the_schedule_covers_at_least_72_hours(settings):
    assert sum(settings.WEBHOOK_RETRY_DELAYS) >= 72 * 3600


def test_gives_up_when_the_schedule_is_spent(company, endpoint, receiver, no_retry_wait, settings):
    settings.WEBHOOK_BREAKER_FAILURES = 100  # the breaker would pause the endpoint first
    receiver.default_status = 500
    _event(company)

    deliveries_run()

    delivery = Delivery.objects.get()
    assert delivery.status == "failed"
    assert delivery.attempt_count == len(receiver.received) == 10


def test_410_disables_the_endpoint_and_tells_the_merchant(company, endpoint, receiver):
    watcher = endpoint_create(company=company, url=receiver.url + "/watcher", event_types=["webhook_endpoint.*"])
    receiver.answer(410)
    _event(company)
    _event(company)

    deliveries_run()

    endpoint.refresh_from_db()
    assert not endpoint.enabled and endpoint.needs_attention
    assert "410" in endpoint.disabled_reason
    statuses = sorted(Delivery.objects.filter(endpoint=endpoint).values_list("status", flat=True))
    assert statuses == ["cancelled", "failed"]
    notice = Event.objects.get(type="webhook_endpoint.disabled")
    assert notice.object_uuid == endpoint.uuid and notice.data["enabled"] is False
    assert "secret" not in notice.data
    watched = [request for request in receiver.received if request.path.endswith("/watcher")]
    assert [Webhook(watcher.secret).verify(r.body, r.headers)["type"] for r in watched] == ["webhook_endpoint.disabled"]


@pytest.mark.parametrize("status", [429, 503])
def test_429_and_503_honour_retry_after(company, endpoint, receiver, status):
    receiver.answer((status, {"Retry-After": "120"}))
    _event(company)
    before = timezone.now()

    deliveries_run()

    delivery = Delivery.objects.get()
    assert delivery.status == "pending"
    assert 119 <= (delivery.next_attempt_at - before).total_seconds() <= 125


def test_endpoint_failing_for_five_days_is_disabled_and_flagged(company, endpoint, receiver):
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=timezone.now() - timedelta(days=5, minutes=1))
    receiver.answer(500)
    _event(company)

    deliveries_run()

    endpoint.refresh_from_db()
    assert not endpoint.enabled and endpoint.needs_attention
    assert endpoint.disabled_reason.startswith("failing since")
    assert Event.objects.filter(type="webhook_endpoint.disabled", object_uuid=endpoint.uuid).exists()


def test_a_success_clears_the_failing_streak(company, endpoint, receiver):
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=timezone.now() - timedelta(days=4))
    _event(company)
    deliveries_run()
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None and endpoint.enabled


def test_rotation_signs_with_both_secrets_for_24_hours(company, endpoint, receiver):
    old_secret = endpoint.secret
    rotated = endpoint_rotate_secret(company=company, endpoint_uuid=endpoint.uuid)
    assert rotated.secret != old_secret and rotated.secret.startswith("whsec_")
    _event(company)
    deliveries_run()
    (request,) = receiver.received
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    Webhook(old_secret).verify(request.body, request.headers)
    Webhook(rotated.secret).verify(request.body, request.headers)

    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(previous_secret_expires_at=timezone.now())
    _event(company)
    deliveries_run()
    latest = receiver.received[-1]
    assert len(latest.headers["webhook-signature"].split(" ")) == 1
    Webhook(rotated.secret).verify(latest.body, latest.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(old_secret).verify(latest.body, latest.headers)


def test_a_redirect_is_a_failed_attempt_and_is_not_followed(company, endpoint, receiver):
    receiver.answer((302, {"Location": receiver.url + "/elsewhere"}))
    _event(company)

    deliveries_run()

    assert [request.path for request in receiver.received] == ["/hooks"]
    assert DeliveryAttempt.objects.get().status_code == 302
    assert Delivery.objects.get().status == "pending"


def test_a_local_address_is_refused_again_at_delivery(company, endpoint, receiver, settings):
    _event(company)
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = False

    deliveries_run()

    assert receiver.received == []
    attempt = DeliveryAttempt.objects.get()
    assert (attempt.status_code, attempt.error) == (None, "destination_refused")
    assert Delivery.objects.get().status == "pending"


def test_an_unreachable_endpoint_records_the_error(company, receiver):
    closed = endpoint_create(company=company, url="http://127.0.0.1:9/nothing-listens", event_types=["*"])
    _event(company)

    deliveries_run()

    attempt = DeliveryAttempt.objects.get(endpoint=closed)
    assert attempt.status_code is None and attempt.error


def test_only_subscribed_types_are_delivered(company, receiver):
    endpoint_create(company=company, url=receiver.url, event_types=["transaction.settled", "payment_method.*"])
    _event(company, type="customer.updated")
    _event(company, type="payment_method.blocked")
    _event(company, type="transaction.settled")
    _event(company, type="transaction.created")

    deliveries_run()

    assert sorted(body["type"] for body in receiver.bodies()) == ["payment_method.blocked", "transaction.settled"]


def test_a_disabled_or_deleted_endpoint_gets_nothing(company, endpoint, receiver):
    from events.services import endpoint_delete, endpoint_update

    second = endpoint_create(company=company, url=receiver.url + "/second", event_types=["*"])
    _event(company)
    events_fan_out()  # the first event is owed to both
    endpoint_update(company=company, endpoint_uuid=endpoint.uuid, changes={"enabled": False})
    endpoint_delete(company=company, endpoint_uuid=second.uuid)
    _event(company)

    assert deliveries_run() == 0
    assert receiver.received == []
    assert list(Delivery.objects.values_list("status", flat=True)) == ["cancelled", "cancelled"]


def test_another_companys_endpoint_never_sees_the_event(company, other_company, receiver):
    endpoint_create(company=other_company, url=receiver.url, event_types=["*"])
    _event(company)
    assert deliveries_run() == 0
    assert receiver.received == []
