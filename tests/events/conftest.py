"""A real HTTP receiver for webhook tests (127.0.0.1, a free port), and endpoints pointing at it."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.db import connection

from events.models import Event
from events.outbox import event_record
from events.services import endpoint_create
from tests import factories


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> dict:
        return json.loads(self.body)


@dataclass
class Receiver:
    """Answers each POST with the next scripted (status, headers), then with `default_status`."""

    url: str = ""
    script: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    default_status: int = 200
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # Set by a test to hold answers until it releases them (a worker killed mid-delivery).
    gate: threading.Event | None = None
    arrived: threading.Event = field(default_factory=threading.Event)

    def answer(self, *statuses: int | tuple[int, dict[str, str]]) -> None:
        self.script.extend(status if isinstance(status, tuple) else (status, {}) for status in statuses)

    def next_answer(self, request: Received) -> tuple[int, dict[str, str]]:
        with self.lock:
            self.received.append(request)
            return self.script.pop(0) if self.script else (self.default_status, {})

    def bodies(self) -> list[dict]:
        with self.lock:
            return [request.json for request in self.received]


def _handler(receiver: Receiver):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = Received(self.path, dict(self.headers.items()), self.rfile.read(length))
            receiver.arrived.set()
            if receiver.gate is not None:
                receiver.gate.wait(30)
            status, headers = receiver.next_answer(request)
            self.send_response(status)
            for name, value in {**headers, "Content-Length": "2"}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args) -> None:
            pass

    return Handler


@contextmanager
def serving(receiver: Receiver) -> Iterator[Receiver]:
    """The receiver on a free loopback port (its `url` set) until the block ends; held answers are released."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    server.daemon_threads = True
    # shutdown() waits for the loop's next poll: by default half a second, at the end of each of some 80 tests
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    try:
        yield receiver
    finally:
        if receiver.gate is not None:
            receiver.gate.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def receiver(settings) -> Iterator[Receiver]:
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    with serving(Receiver()) as receiver:
        yield receiver


@pytest.fixture
def endpoint(company, receiver):
    return endpoint_create(company=company, url=receiver.url, event_types=["*"])


@pytest.fixture
def no_retry_wait(settings):
    """Retries due at once, so one worker pass walks the whole schedule."""
    settings.WEBHOOK_RETRY_DELAYS = (0,) * 9


def customer_event(company, type: str = "customer.updated", **data) -> Event:
    """An event about a fresh customer of `company`, recorded (and committed when not in a test transaction)."""
    owner = factories.CustomerFactory(company=company)
    return event_record(company_id=company.pk, type=type, object_uuid=owner.uuid, data=data)


def wire_body(event: Event, company) -> dict:
    """The JSON body CONTRACT 9 promises for `event`, built by hand from the row."""
    return {
        "id": str(event.uuid),
        "type": event.type,
        "timestamp": event.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "companyUuid": str(company.uuid),
        "objectUuid": str(event.object_uuid),
        "sequence": event.sequence,
        "data": event.data,
    }


def worker_env(*, port: int | None = None, **extra: str) -> dict[str, str]:
    """The environment of a `manage.py run_worker` subprocess on the test database (through `port` if given)."""
    settings_dict = connection.settings_dict
    host, port = settings_dict["HOST"], port or settings_dict["PORT"]
    return {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": f"postgres://{settings_dict['USER']}@{host}:{port}/{settings_dict['NAME']}",
        "WEBHOOK_ALLOW_PRIVATE_URLS": "1",
        "WEBHOOK_TIMEOUT_SECONDS": "1",
        "WEBHOOK_LEASE_SECONDS": "4",
        **extra,
    }
