"""Sending what is owed: fan the outbox's events out into deliveries, claim due deliveries fairly under a
lease, POST each one signed per Standard Webhooks from a pool of threads, record every attempt, and schedule
the retry (exponential backoff with jitter, Retry-After on 429/503) or give up (410, schedule exhausted,
endpoint failing for days).

Fairness (N6): one delivery in flight per endpoint (a lease on the endpoint row), endpoints claimed least
recently served first and round-robin by company, sends on WEBHOOK_SEND_THREADS threads while the loop keeps
claiming, and a circuit breaker per endpoint, so a tenant's tarpit holds one thread, not the queue.

Network work (DNS included) happens outside any database transaction: a claim and a record are each one short
transaction. A worker that dies between them leaves its lease to expire, and the next worker sends the delivery
again (at least once; receivers deduplicate on `webhook-id`). An exception in one delivery is recorded as a
failed attempt (`internal_error`) and the loop goes on (N10). Merchants see a coarse error category, never
the exception's text (N9)."""

from __future__ import annotations

import email.utils
import logging
import random
import secrets
import ssl
import time
from collections import defaultdict
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import orjson
import urllib3
from django.conf import settings
from django.db import InterfaceError, OperationalError, transaction
from django.db.models import Exists, F, OuterRef, Q
from django.utils import timezone
from standardwebhooks import Webhook

from events.destinations import Destination, UnresolvableDestination, UnsafeDestination, destination_resolve
from events.models import Delivery, DeliveryAttempt, WebhookEndpoint
from events.outbox import events_fan_out
from events.records import event_body
from events.services import endpoint_disable
from events.wakeups import deliveries_due_wake

logger = logging.getLogger("events.delivery")

BATCH_SIZE = 50
RETRY_AFTER_CODES = frozenset({429, 503})
GONE = 410
MAX_RETRY_AFTER_SECONDS = 24 * 3600
USER_AGENT = "vault-webhooks/1"
# While sends are in flight, the loop looks for newly due work this often.
POLL_SECONDS = 0.25
# Endpoints read per claim, per free thread: enough to interleave companies.
CLAIM_WINDOW = 4


class ErrorCategory:
    """What a merchant sees of a failed attempt (`attempts[].error`): a category, never the exception's text,
    which can carry certificate names of our egress or other internals (N9)."""

    TIMEOUT = "timeout"
    CONNECTION_REFUSED = "connection_refused"
    CONNECTION_ERROR = "connection_error"
    DNS = "dns"
    TLS = "tls"
    HTTP_STATUS = "http_status"
    DESTINATION_REFUSED = "destination_refused"
    INTERNAL_ERROR = "internal_error"


def _chain(exc: BaseException):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def error_category(exc: BaseException) -> str:
    """The category of a send's exception, looking through the exceptions it wraps."""
    chain = list(_chain(exc))
    kinds = (
        ((UnresolvableDestination, urllib3.exceptions.NameResolutionError), ErrorCategory.DNS),
        ((UnsafeDestination,), ErrorCategory.DESTINATION_REFUSED),
        ((urllib3.exceptions.SSLError, ssl.SSLError), ErrorCategory.TLS),
        ((ConnectionRefusedError,), ErrorCategory.CONNECTION_REFUSED),
    )
    for classes, category in kinds:
        if any(isinstance(link, classes) for link in chain):
            return category
    if any(isinstance(link, urllib3.exceptions.NewConnectionError) for link in chain):
        return ErrorCategory.CONNECTION_ERROR
    if any(isinstance(link, (urllib3.exceptions.TimeoutError, TimeoutError)) for link in chain):
        return ErrorCategory.TIMEOUT
    if isinstance(exc, (urllib3.exceptions.HTTPError, OSError)):
        return ErrorCategory.CONNECTION_ERROR
    return ErrorCategory.INTERNAL_ERROR


@dataclass(frozen=True)
class Outcome:
    status_code: int | None = None
    duration_ms: int = 0
    error: str = ""
    retry_after: float | None = None

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds (RFC 9110: a number of seconds or an HTTP date), bounded to a day."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        seconds = float(value)
    else:
        try:
            moment = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = (moment - datetime.now(UTC)).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


class Sender:
    """Keep-alive connection pools per checked address, kept for the life of the worker process. Several endpoints
    may share an address (one receiver behind many URLs): each send thread may keep its connection there, or every
    send past the first would open a new one and log "Connection pool is full"."""

    def __init__(self) -> None:
        self._pools: dict[tuple[str, str, int, str], urllib3.HTTPConnectionPool] = {}

    def _pool(self, destination: Destination) -> urllib3.HTTPConnectionPool:
        key = (destination.scheme, destination.address, destination.port, destination.host)
        pool = self._pools.get(key)
        if pool is None:
            timeout = urllib3.Timeout(
                connect=min(settings.WEBHOOK_TIMEOUT_SECONDS, 5), read=settings.WEBHOOK_TIMEOUT_SECONDS
            )
            if destination.scheme == "https":
                # Connect to the address that was checked; the certificate and SNI still name the host.
                pool = urllib3.HTTPSConnectionPool(
                    destination.address,
                    destination.port,
                    timeout=timeout,
                    retries=False,
                    maxsize=settings.WEBHOOK_SEND_THREADS,
                    server_hostname=destination.wire_host,
                    assert_hostname=destination.wire_host,
                )
            else:
                pool = urllib3.HTTPConnectionPool(
                    destination.address,
                    destination.port,
                    timeout=timeout,
                    retries=False,
                    maxsize=settings.WEBHOOK_SEND_THREADS,
                )
            self._pools[key] = pool
        return pool

    def post(self, destination: Destination, body: bytes, headers: dict[str, str]) -> Outcome:
        started = time.monotonic()
        try:
            response = self._pool(destination).urlopen(
                "POST",
                destination.target,
                body=body,
                headers={**headers, "Host": destination.host_header},
                redirect=False,  # a 3xx is a failed attempt, never followed (SSRF)
                retries=False,
                preload_content=True,
            )
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            elapsed = int((time.monotonic() - started) * 1000)
            return Outcome(duration_ms=elapsed, error=error_category(exc))
        elapsed = int((time.monotonic() - started) * 1000)
        retry_after = (
            _retry_after(response.headers.get("Retry-After")) if response.status in RETRY_AFTER_CODES else None
        )
        error = "" if 200 <= response.status < 300 else ErrorCategory.HTTP_STATUS
        return Outcome(status_code=response.status, duration_ms=elapsed, retry_after=retry_after, error=error)


_sender = Sender()


def signature_header(endpoint: WebhookEndpoint, msg_id: str, timestamp: datetime, body: str, now: datetime) -> str:
    """`v1,<sig>` per secret, space separated: the previous secret signs too until it expires (rotation)."""
    keys = [endpoint.secret]
    if endpoint.previous_secret and endpoint.previous_secret_expires_at and endpoint.previous_secret_expires_at > now:
        keys.append(endpoint.previous_secret)
    return " ".join(Webhook(key).sign(msg_id=msg_id, timestamp=timestamp, data=body) for key in keys)


@dataclass
class Claim:
    token: str
    lease_until: datetime
    deliveries: list[Delivery]


def _due(now: datetime):
    return Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now).filter(
        Q(leased_until__isnull=True) | Q(leased_until__lte=now)
    )


def _round_robin(endpoints: list[tuple[int, int]], limit: int) -> list[int]:
    """Endpoint ids, one per company per round (each company's in the order given), at most `limit`."""
    by_company: dict[int, list[int]] = defaultdict(list)
    for endpoint_id, company_id in endpoints:
        by_company[company_id].append(endpoint_id)
    chosen: list[int] = []
    queues = list(by_company.values())
    while queues and len(chosen) < limit:
        for queue in queues:
            if len(chosen) < limit:
                chosen.append(queue.pop(0))
        queues = [queue for queue in queues if queue]
    return chosen


def deliveries_claim(*, limit: int, now: datetime) -> Claim:
    """Lease at most one due delivery on each of up to `limit` endpoints: endpoints with nothing in flight and a
    closed (or half-open) circuit, least recently served first, round-robin by company. Endpoint rows another
    worker is claiming are skipped (PostgreSQL SKIP LOCKED); on SQLite writers take turns."""
    token = secrets.token_hex(16)
    lease_until = now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    with transaction.atomic():
        candidates = list(
            WebhookEndpoint.objects.filter(Exists(_due(now).filter(endpoint=OuterRef("pk"))))
            .filter(Q(leased_until__isnull=True) | Q(leased_until__lte=now))
            .filter(Q(circuit_open_until__isnull=True) | Q(circuit_open_until__lte=now))
            .order_by(F("last_claimed_at").asc(nulls_first=True), "id")
            .select_for_update(skip_locked=True)
            .values_list("pk", "company_id")[: limit * CLAIM_WINDOW]
        )
        delivery_ids = []
        for endpoint_id in _round_robin(candidates, limit):
            first = _due(now).filter(endpoint_id=endpoint_id).order_by("next_attempt_at", "id").first()
            if first is not None:
                delivery_ids.append(first.pk)
        if not delivery_ids:
            return Claim(token, lease_until, [])
        claimed = _due(now).filter(pk__in=delivery_ids)
        WebhookEndpoint.objects.filter(pk__in=claimed.values("endpoint_id")).update(
            lease_token=token, leased_until=lease_until, last_claimed_at=now
        )
        claimed.update(leased_until=lease_until, lease_token=token)
    rows = Delivery.objects.filter(pk__in=delivery_ids, lease_token=token).select_related("event__company", "endpoint")
    return Claim(token, lease_until, list(rows.order_by("id")))


def retry_delay(attempt_number: int) -> float | None:
    """Seconds until the next try after failed attempt `attempt_number` (1-based), with up to 20% jitter so
    many failures do not return in lockstep; None when the schedule is spent."""
    delays = settings.WEBHOOK_RETRY_DELAYS
    if attempt_number > len(delays):
        return None
    base = delays[attempt_number - 1]
    return base + base * random.uniform(0, 0.2)  # noqa: S311 - jitter, not a secret


def _send(delivery: Delivery) -> Outcome:
    """One POST, on a pool thread: resolving the host (with its deadline) and sending touch no database."""
    endpoint = delivery.endpoint
    try:
        destination = destination_resolve(endpoint.url)
    except UnsafeDestination as exc:
        return Outcome(error=error_category(exc))
    event = delivery.event
    body = orjson.dumps(event_body(event, company_uuid=event.company.uuid)).decode()
    msg_id = str(event.uuid)
    sent_at = datetime.now(UTC)
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(sent_at.timestamp())),
        "webhook-signature": signature_header(endpoint, msg_id, sent_at, body, timezone.now()),
    }
    return _sender.post(destination, body.encode(), headers)


def _attempt(delivery: Delivery) -> Outcome:
    """`_send`, and any exception it raises becomes a failed attempt: one delivery never stops the worker."""
    try:
        return _send(delivery)
    except Exception:
        logger.exception("webhook delivery %s to endpoint %s failed", delivery.pk, delivery.endpoint.uuid)
        return Outcome(error=ErrorCategory.INTERNAL_ERROR)


def _record(token: str, delivery: Delivery, outcome: Outcome | None) -> None:
    """One transaction: the attempt, the delivery's new state, the endpoint's lease, breaker and health
    (`outcome` None: the delivery is cancelled, its endpoint being gone). Every update checks the lease
    token, so a worker whose lease ran out cannot overwrite a newer claim. Endpoint first, then delivery: the
    claim's lock order."""
    now = timezone.now()
    with transaction.atomic():
        endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=delivery.endpoint_id).first()
        if endpoint is not None and endpoint.lease_token == token:
            _record_breaker(endpoint, outcome, now)
        mine = Delivery.objects.filter(pk=delivery.pk, lease_token=token)
        if outcome is None:
            mine.update(status=Delivery.Status.CANCELLED, leased_until=None)
            return
        _record_attempt(delivery, outcome, now)
        next_wake = _record_sent(mine, delivery, outcome, now)
        if endpoint is not None:
            if outcome.delivered:
                _record_endpoint_health({endpoint.pk}, {}, {}, now)
            elif outcome.status_code == GONE:
                _record_endpoint_health(set(), {}, {endpoint.pk: endpoint}, now)
            else:
                _record_endpoint_health(set(), {endpoint.pk: endpoint}, {}, now)
            if endpoint.circuit_open_until is not None:
                next_wake = min(next_wake or endpoint.circuit_open_until, endpoint.circuit_open_until)
        if next_wake is not None:
            transaction.on_commit(lambda: _wake_worker_at(next_wake), robust=True)


def _record_breaker(endpoint: WebhookEndpoint, outcome: Outcome | None, now: datetime) -> None:
    """Release the endpoint's lease and move its circuit: a success closes it; the WEBHOOK_BREAKER_FAILURES-th
    failure in a row opens it, and each failed trial after that opens it again for twice as long."""
    endpoint.lease_token, endpoint.leased_until = "", None
    if outcome is not None and outcome.delivered:
        endpoint.consecutive_failures, endpoint.circuit_open_until = 0, None
    elif outcome is not None:
        endpoint.consecutive_failures += 1
        beyond = endpoint.consecutive_failures - settings.WEBHOOK_BREAKER_FAILURES
        if beyond >= 0:
            seconds = min(
                settings.WEBHOOK_BREAKER_OPEN_SECONDS * 2 ** min(beyond, 20), settings.WEBHOOK_BREAKER_MAX_OPEN_SECONDS
            )
            endpoint.circuit_open_until = now + timedelta(seconds=seconds)
    endpoint.save(update_fields=["lease_token", "leased_until", "consecutive_failures", "circuit_open_until"])


def _record_attempt(delivery: Delivery, outcome: Outcome, now: datetime) -> None:
    DeliveryAttempt.objects.create(
        company_id=delivery.company_id,
        delivery=delivery,
        event_id=delivery.event_id,
        endpoint_id=delivery.endpoint_id,
        attempted_at=now,
        status_code=outcome.status_code,
        duration_ms=outcome.duration_ms,
        error=outcome.error,
    )


def _record_sent(mine, delivery: Delivery, outcome: Outcome, now: datetime) -> datetime | None:
    """The delivery's new state: delivered, failed for good, or due again (returned: when)."""
    if outcome.delivered:
        mine.update(
            status=Delivery.Status.DELIVERED,
            delivered_at=now,
            attempt_count=F("attempt_count") + 1,
            leased_until=None,
        )
        return None
    attempt_number = delivery.attempt_count + 1
    delay = None if outcome.status_code == GONE else retry_delay(attempt_number)
    if outcome.retry_after is not None and delay is not None:
        delay = outcome.retry_after
    if delay is None:
        mine.update(status=Delivery.Status.FAILED, attempt_count=attempt_number, leased_until=None)
        return None
    due = now + timedelta(seconds=delay)
    mine.update(attempt_count=attempt_number, next_attempt_at=due, leased_until=None)
    return due


def _record_endpoint_health(
    healthy: set[int], failing: dict[int, WebhookEndpoint], gone: dict[int, WebhookEndpoint], now: datetime
) -> None:
    """An endpoint that answered well is healthy again; one failing for WEBHOOK_DISABLE_AFTER_DAYS, or one
    that answered 410 Gone, is disabled."""
    if healthy:
        WebhookEndpoint.objects.filter(pk__in=healthy, failing_since__isnull=False).update(failing_since=None)
    failing_ids = set(failing) - healthy
    if failing_ids:
        WebhookEndpoint.objects.filter(pk__in=failing_ids, failing_since__isnull=True).update(failing_since=now)
        cutoff = now - timedelta(days=settings.WEBHOOK_DISABLE_AFTER_DAYS)
        for endpoint in WebhookEndpoint.objects.filter(pk__in=failing_ids, enabled=True, failing_since__lte=cutoff):
            endpoint_disable(
                endpoint=endpoint, reason=f"failing since {endpoint.failing_since:%Y-%m-%d %H:%M} UTC", now=now
            )
    for endpoint in gone.values():
        endpoint_disable(endpoint=endpoint, reason="the endpoint answered 410 Gone", now=now)


def _wake_worker_at(moment: datetime | None) -> None:
    deliveries_due_wake(at=moment)


def _record_safely(token: str, delivery: Delivery, outcome: Outcome | None) -> None:
    try:
        _record(token, delivery, outcome)
    except (OperationalError, InterfaceError) as exc:
        # The database went away mid-record: an outage the worker's loop waits out, not a bug, so one line and no
        # traceback. The lease lapses and the delivery is sent again.
        logger.warning(
            "recording webhook delivery %s failed: the database went away (%s)", delivery.pk, type(exc).__name__
        )
    except Exception:
        # The lease lapses and the delivery is sent again; the loop goes on for everyone else.
        logger.exception("recording webhook delivery %s failed", delivery.pk)


def deliveries_run(*, batch_size: int = BATCH_SIZE, max_batches: int | None = None) -> int:
    """Fan out new events, then send everything due: claims of at most one delivery per endpoint fill the free
    send threads, and while sends are in flight the loop keeps claiming newly due work, so a slow endpoint
    holds one thread for its timeout and nobody else waits for it. Ends when nothing is due and nothing is in
    flight (or after `max_batches` claims, once those are sent). Several workers may run this at once; each
    claims its own rows. Returns the number of attempts made."""
    slots = max(1, min(settings.WEBHOOK_SEND_THREADS, batch_size))
    attempts = claims = 0
    in_flight: dict[Future, tuple[str, Delivery]] = {}
    with ThreadPoolExecutor(max_workers=slots, thread_name_prefix="webhook-send") as pool:
        while True:
            if len(in_flight) < slots and (max_batches is None or claims < max_batches):
                while events_fan_out():
                    pass
                claim = deliveries_claim(limit=slots - len(in_flight), now=timezone.now())
                if claim.deliveries:
                    claims += 1
                    if claims == 1 and len(claim.deliveries) == slots:
                        _wake_worker_at(None)  # more is probably due: ask one more worker to join
                for delivery in claim.deliveries:
                    endpoint = delivery.endpoint
                    if not endpoint.enabled or endpoint.deleted_at is not None:
                        _record_safely(claim.token, delivery, None)
                    else:
                        in_flight[pool.submit(_attempt, delivery)] = (claim.token, delivery)
                if not claim.deliveries and not in_flight:
                    break
            elif not in_flight:
                break
            done, _ = wait(in_flight, timeout=POLL_SECONDS, return_when=FIRST_COMPLETED)
            for future in done:
                token, delivery = in_flight.pop(future)
                _record_safely(token, delivery, future.result())
                attempts += 1
    return attempts
