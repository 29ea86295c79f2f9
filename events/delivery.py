"""Sending what is owed: claim due deliveries under a lease (so no two workers send one event to one
endpoint at the same time), POST each one signed per Standard Webhooks, record every attempt, and schedule
the retry (exponential backoff with jitter, Retry-After on 429/503) or give up (410, schedule exhausted,
endpoint failing for days).

Network work happens outside any database transaction: a claim and a record are each one short transaction.
A worker that dies between them leaves its lease to expire, and the next worker sends the delivery again
(at least once; receivers deduplicate on `webhook-id`)."""

from __future__ import annotations

import email.utils
import logging
import random
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import orjson
import urllib3
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from standardwebhooks import Webhook

from events.destinations import Destination, UnsafeDestination, destination_resolve
from events.models import Delivery, DeliveryAttempt, WebhookEndpoint
from events.records import event_body
from events.services import endpoint_disable

logger = logging.getLogger("events.delivery")

BATCH_SIZE = 50
RETRY_AFTER_CODES = frozenset({429, 503})
GONE = 410
MAX_RETRY_AFTER_SECONDS = 24 * 3600
USER_AGENT = "vault-webhooks/1"


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
    """Keep-alive connection pools per checked address, kept for the life of the worker process."""

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
                    maxsize=1,
                    server_hostname=destination.host,
                    assert_hostname=destination.host,
                )
            else:
                pool = urllib3.HTTPConnectionPool(
                    destination.address, destination.port, timeout=timeout, retries=False, maxsize=1
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
            return Outcome(duration_ms=elapsed, error=f"{type(exc).__name__}: {exc}"[:255])
        elapsed = int((time.monotonic() - started) * 1000)
        retry_after = (
            _retry_after(response.headers.get("Retry-After")) if response.status in RETRY_AFTER_CODES else None
        )
        return Outcome(status_code=response.status, duration_ms=elapsed, retry_after=retry_after)


_sender = Sender()


def signature_header(endpoint: WebhookEndpoint, msg_id: str, timestamp: datetime, body: str, now: datetime) -> str:
    """`v1,<sig>` per secret, space separated: the previous secret signs too until it expires (rotation)."""
    keys = [endpoint.secret]
    if endpoint.previous_secret and endpoint.previous_secret_expires_at and endpoint.previous_secret_expires_at > now:
        keys.append(endpoint.previous_secret)
    return " ".join(Webhook(key).sign(msg_id=msg_id, timestamp=timestamp, data=body) for key in keys)


def _due(now: datetime):
    return Delivery.objects.filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now).filter(
        Q(leased_until__isnull=True) | Q(leased_until__lte=now)
    )


def deliveries_claim(*, limit: int, now: datetime) -> tuple[str, datetime, list[Delivery]]:
    """Lease up to `limit` due deliveries to this worker. Rows another worker is claiming are skipped
    (PostgreSQL SKIP LOCKED); the conditional update makes the claim safe on SQLite too."""
    token = secrets.token_hex(16)
    lease_until = now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    with transaction.atomic():
        ids = list(
            _due(now)
            .order_by("next_attempt_at", "id")
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)[:limit]
        )
        if not ids:
            return token, lease_until, []
        _due(now).filter(pk__in=ids).update(leased_until=lease_until, lease_token=token)
    claimed = Delivery.objects.filter(pk__in=ids, lease_token=token).select_related("event__company", "endpoint")
    return token, lease_until, list(claimed.order_by("id"))


def retry_delay(attempt_number: int) -> float | None:
    """Seconds until the next try after failed attempt `attempt_number` (1-based), with up to 20% jitter so
    many failures do not return in lockstep; None when the schedule is spent."""
    delays = settings.WEBHOOK_RETRY_DELAYS
    if attempt_number > len(delays):
        return None
    base = delays[attempt_number - 1]
    return base + base * random.uniform(0, 0.2)  # noqa: S311 - jitter, not a secret


def _send(delivery: Delivery, destinations: dict[int, Destination | str]) -> Outcome:
    endpoint = delivery.endpoint
    destination = destinations.get(endpoint.pk)
    if destination is None:
        try:
            destination = destination_resolve(endpoint.url)
        except UnsafeDestination as exc:
            destination = f"destination refused: {exc}"
        destinations[endpoint.pk] = destination
    if isinstance(destination, str):
        return Outcome(error=destination)
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


def _record(token: str, sent: list[tuple[Delivery, Outcome]], unsent: list[Delivery], cancelled: list[Delivery]):
    """One transaction: the attempts, the deliveries' new state, the endpoints' health. Every delivery update
    checks the lease token, so a worker whose lease ran out cannot overwrite a newer claim."""
    now = timezone.now()
    with transaction.atomic():
        _record_attempts(sent, now)
        mine = Delivery.objects.filter(lease_token=token)
        next_wake, healthy, failing, gone = _record_sent(mine, sent, now)
        if unsent:
            mine.filter(pk__in=[delivery.pk for delivery in unsent]).update(leased_until=None)
        if cancelled:
            mine.filter(pk__in=[delivery.pk for delivery in cancelled]).update(
                status=Delivery.Status.CANCELLED, leased_until=None
            )
        _record_endpoint_health(healthy, failing, gone, now)
        if next_wake is not None:
            transaction.on_commit(lambda: _wake_worker_at(next_wake), robust=True)


def _record_attempts(sent: list[tuple[Delivery, Outcome]], now: datetime) -> None:
    DeliveryAttempt.objects.bulk_create(
        [
            DeliveryAttempt(
                company_id=delivery.company_id,
                delivery=delivery,
                event_id=delivery.event_id,
                endpoint_id=delivery.endpoint_id,
                attempted_at=now,
                status_code=outcome.status_code,
                duration_ms=outcome.duration_ms,
                error=outcome.error,
            )
            for delivery, outcome in sent
        ]
    )


def _record_sent(mine, sent: list[tuple[Delivery, Outcome]], now: datetime):
    """The sent deliveries' new state: delivered, failed for good, or due again. Returns the earliest retry
    (or None) and the endpoints that answered well, badly, and 410 Gone."""
    next_wake: datetime | None = None
    gone: dict[int, WebhookEndpoint] = {}
    failing: dict[int, WebhookEndpoint] = {}
    healthy: set[int] = set()
    delivered = [delivery.pk for delivery, outcome in sent if outcome.delivered]
    if delivered:
        mine.filter(pk__in=delivered).update(
            status=Delivery.Status.DELIVERED,
            delivered_at=now,
            attempt_count=F("attempt_count") + 1,
            leased_until=None,
        )
    for delivery, outcome in sent:
        if outcome.delivered:
            healthy.add(delivery.endpoint_id)
            continue
        attempt_number = delivery.attempt_count + 1
        delay = None if outcome.status_code == GONE else retry_delay(attempt_number)
        if outcome.retry_after is not None and delay is not None:
            delay = outcome.retry_after
        if delay is None:
            mine.filter(pk=delivery.pk).update(
                status=Delivery.Status.FAILED, attempt_count=attempt_number, leased_until=None
            )
        else:
            due = now + timedelta(seconds=delay)
            mine.filter(pk=delivery.pk).update(attempt_count=attempt_number, next_attempt_at=due, leased_until=None)
            next_wake = min(next_wake or due, due)
        (gone if outcome.status_code == GONE else failing)[delivery.endpoint_id] = delivery.endpoint
    return next_wake, healthy, failing, gone


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
    from events.tasks import deliver_webhooks_soon  # tasks imports this module

    deliver_webhooks_soon(at=moment)


def deliveries_send(token: str, lease_until: datetime, batch: list[Delivery]) -> int:
    """Send a claimed batch; returns how many attempts were made."""
    destinations: dict[int, Destination | str] = {}
    # A request may take up to connect + read timeout; one that could outlast the lease is left for later,
    # so no other worker can claim a delivery this one is still sending.
    longest = timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS + min(settings.WEBHOOK_TIMEOUT_SECONDS, 5) + 1)
    sent: list[tuple[Delivery, Outcome]] = []
    unsent: list[Delivery] = []
    cancelled: list[Delivery] = []
    gone: set[int] = set()  # endpoints that answered 410 in this batch: nothing more goes to them
    for delivery in batch:
        endpoint = delivery.endpoint
        if not endpoint.enabled or endpoint.deleted_at is not None or endpoint.pk in gone:
            cancelled.append(delivery)
        elif timezone.now() + longest > lease_until:
            unsent.append(delivery)
        else:
            outcome = _send(delivery, destinations)
            sent.append((delivery, outcome))
            if outcome.status_code == GONE:
                gone.add(endpoint.pk)
    _record(token, sent, unsent, cancelled)
    return len(sent)


def deliveries_run(*, batch_size: int = BATCH_SIZE, max_batches: int | None = None) -> int:
    """Send everything due now, batch after batch, until nothing is due (or `max_batches`). Several workers
    may run this at once; each claims its own rows. Returns the number of attempts made."""
    attempts = batches = 0
    while max_batches is None or batches < max_batches:
        token, lease_until, batch = deliveries_claim(limit=batch_size, now=timezone.now())
        if not batch:
            break
        if batches == 0 and len(batch) == batch_size:
            # More is probably due: ask one more worker to join (it does the same), so a backlog spreads.
            _wake_worker_at(None)
        attempts += deliveries_send(token, lease_until, batch)
        batches += 1
    return attempts
