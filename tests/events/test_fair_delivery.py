"""N6, N9, N10: fair delivery (one delivery in flight per endpoint, sends from a pool, a circuit breaker per
endpoint), coarse error categories for merchants, and a worker that survives any one delivery's exception.
Tarpits and receivers are real sockets on loopback."""

from __future__ import annotations

import socket
import threading
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone

from events import delivery as delivery_module
from events.delivery import deliveries_run
from events.models import Delivery, DeliveryAttempt, WebhookEndpoint
from events.services import endpoint_create
from tests.events.conftest import customer_event


class Tarpit:
    """Accepts connections and never answers; counts them."""

    def __init__(self) -> None:
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(100)
        self.held: list[socket.socket] = []
        self.accepted = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/slow"

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(conn)
            self.accepted.set()

    def close(self) -> None:
        self.listener.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def tarpit():
    pit = Tarpit()
    yield pit
    pit.close()


def _circuit(api_client, endpoint) -> dict:
    return api_client.get(f"/webhooks/endpoints/{endpoint.uuid}").json()["data"]["circuit"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_tarpit_endpoint_does_not_delay_another_companys_webhook(
    company, other_company, receiver, tarpit, settings, api_client
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 8  # room for a loaded machine: B's must go out while A's first is held
    settings.WEBHOOK_BREAKER_FAILURES = 2
    slow = endpoint_create(company=company, url=tarpit.url, event_types=["*"])
    endpoint_create(company=other_company, url=receiver.url, event_types=["*"])
    with transaction.atomic():
        for _ in range(20):
            customer_event(company)
    done: list[int] = []

    def worker() -> None:
        try:
            done.append(deliveries_run())
        finally:
            connection.close()

    running = threading.Thread(target=worker)
    running.start()
    try:
        assert tarpit.accepted.wait(30), "the worker never reached the tarpit"
        with transaction.atomic():
            victim = customer_event(other_company)

        assert receiver.arrived.wait(5), "company B's webhook waited behind company A's tarpit"
        # While B's webhook went out, A's first delivery was still held by the tarpit, and it was the only one.
        assert len(tarpit.held) == 1
        assert not DeliveryAttempt.objects.filter(endpoint=slow).exists()
    finally:
        running.join(120)
    assert [body["id"] for body in receiver.bodies()] == [str(victim.uuid)]
    # Two timeouts in a row opened A's circuit: the other 18 deliveries wait for the endpoint, not each its turn.
    errors = list(DeliveryAttempt.objects.filter(endpoint=slow).values_list("error", flat=True))
    assert errors == ["timeout", "timeout"]
    assert Delivery.objects.filter(endpoint=slow, status="pending").count() == 20
    assert _circuit(api_client, slow)["state"] == "open"


@pytest.mark.django_db
def test_the_circuit_opens_after_consecutive_failures_and_a_trial_closes_it(
    api_client, company, endpoint, receiver, settings, no_retry_wait
):
    settings.WEBHOOK_BREAKER_FAILURES = 3
    receiver.default_status = 500
    customer_event(company)
    customer_event(company)

    deliveries_run()

    assert len(receiver.received) == 3  # then nothing more: the circuit is open
    circuit = _circuit(api_client, endpoint)
    assert (circuit["state"], circuit["consecutiveFailures"]) == ("open", 3) and circuit["openUntil"].endswith("Z")
    assert deliveries_run() == 0

    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(circuit_open_until=timezone.now() - timedelta(seconds=1))
    assert _circuit(api_client, endpoint)["state"] == "half_open"
    receiver.default_status = 200
    deliveries_run()

    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}
    assert _circuit(api_client, endpoint) == {"state": "closed", "consecutiveFailures": 0, "openUntil": None}


@pytest.mark.django_db
def test_a_failed_trial_opens_the_circuit_for_twice_as_long(company, endpoint, receiver, settings, no_retry_wait):
    settings.WEBHOOK_BREAKER_FAILURES = 1
    settings.WEBHOOK_BREAKER_OPEN_SECONDS = 60
    receiver.default_status = 500
    customer_event(company)
    deliveries_run()
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(circuit_open_until=timezone.now() - timedelta(seconds=1))

    before = timezone.now()
    deliveries_run()

    endpoint.refresh_from_db()
    assert 119 <= (endpoint.circuit_open_until - before).total_seconds() <= 125
    assert len(receiver.received) == 2


@pytest.mark.django_db
def test_attempt_errors_are_categories_not_exception_text(company, receiver, tarpit, settings):
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    refused_url = f"http://127.0.0.1:{closed.getsockname()[1]}/nothing-listens"
    closed.close()
    plain_port = receiver.url.split(":")[2].split("/")[0]
    endpoints = {
        "connection_refused": endpoint_create(company=company, url=refused_url, event_types=["*"]),
        "timeout": endpoint_create(company=company, url=tarpit.url, event_types=["*"]),
        "tls": endpoint_create(company=company, url=f"https://127.0.0.1:{plain_port}/hooks", event_types=["*"]),
        "http_status": endpoint_create(company=company, url=receiver.url, event_types=["*"]),
    }
    receiver.default_status = 500
    customer_event(company)

    deliveries_run()

    for category, endpoint in endpoints.items():
        assert DeliveryAttempt.objects.get(endpoint=endpoint).error == category


@pytest.mark.django_db
def test_a_host_that_stops_resolving_is_a_dns_failure(company, endpoint, receiver):
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(url="http://no-such-host.invalid/hooks")
    customer_event(company)
    deliveries_run()
    assert DeliveryAttempt.objects.get().error == "dns"


@pytest.mark.django_db
def test_an_exception_in_one_delivery_is_a_failed_attempt_and_the_others_go_out(
    company, other_company, receiver, monkeypatch
):
    broken = endpoint_create(company=company, url=receiver.url + "/broken", event_types=["*"])
    endpoint_create(company=other_company, url=receiver.url + "/fine", event_types=["*"])
    real_post = delivery_module.Sender.post

    def post(self, destination, body, headers):
        if destination.target == "/hooks/broken":
            raise UnicodeEncodeError("latin-1", "例", 0, 1, "an exception no network error class covers")
        return real_post(self, destination, body, headers)

    monkeypatch.setattr(delivery_module.Sender, "post", post)
    customer_event(company)
    customer_event(other_company)

    assert deliveries_run() == 2  # returns normally

    assert [request.path for request in receiver.received] == ["/hooks/fine"]
    attempt = DeliveryAttempt.objects.get(endpoint=broken)
    assert (attempt.status_code, attempt.error) == (None, "internal_error")
    assert Delivery.objects.get(endpoint=broken).status == "pending"  # retried on schedule


@pytest.mark.django_db
def test_an_internationalized_host_is_sent_idna_encoded(company, receiver, monkeypatch):
    from events import destinations

    real = socket.getaddrinfo
    port = int(receiver.url.split(":")[2].split("/")[0])

    def resolve(host, *args, **kwargs):
        if host == "例え.jp":
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(destinations.socket, "getaddrinfo", resolve)
    endpoint_create(company=company, url=f"http://例え.jp:{port}/hooks", event_types=["*"])
    customer_event(company)

    deliveries_run()

    (request,) = receiver.received
    assert request.headers["Host"] == f"xn--r8jz45g.jp:{port}"
    assert Delivery.objects.get().status == "delivered"
