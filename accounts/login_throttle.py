"""Brute-force guard shared by POST /auth/login and the admin login (H3, M4, N7).

First a rate per client address (any outcome, LOGIN_RATE_PER_ADDRESS, accounts/rate_windows.py), before anything
else: an unauthenticated login costs a password hash (~650 ms of CPU), so nobody buys many of them. Then failures
are counted per (email, client address) and per client address, in database rows locked while they are counted,
so parallel guesses cannot pass a limit. The lock is per (email, address) rather than per email (N7): anonymous
requests from elsewhere cannot lock the owner out; the right password from another address still works.

An attempt is reserved before the password is checked and handed back when it succeeds, so the counters hold
failures only. Past its limit an (email, address) pair is locked for a while that doubles each time (1, 2, 4 ...
at most 15 minutes). A refused attempt counts nowhere and checks no password. Every failure is logged (logger
`vault.auth`) with a keyed hash of the email, never the email itself, and the client address."""

from __future__ import annotations

import ipaddress
import logging
import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import LoginThrottle
from accounts.rate_windows import Limit, rate_windows_hit

logger = logging.getLogger("vault.auth")


@dataclass(frozen=True)
class Bucket:
    key: str
    limit: int
    first_lock_seconds: int
    max_lock_seconds: int


def client_ip(request) -> str:
    """REMOTE_ADDR, or with TRUSTED_PROXY_HOPS = n the n-th X-Forwarded-For entry from the right (the one our
    outermost proxy appended; anything left of it is the client's to forge)."""
    address = request.META.get("REMOTE_ADDR", "")
    hops = settings.TRUSTED_PROXY_HOPS
    if hops:
        forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if part.strip()]
        if forwarded:
            # Fewer entries than hops: the request passed fewer proxies, so even the leftmost one is ours.
            address = forwarded[-hops] if len(forwarded) >= hops else forwarded[0]
    return address


def client_address(request) -> str:
    """The client's address as the throttles count it: IPv6 per /64, which one client can rotate through freely."""
    address = client_ip(request)
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:45] or "unknown"
    if ip.version == 4:
        return str(ip)
    if ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ipaddress.ip_network(f"{ip}/64", strict=False))


def email_digest(identifier: str, purpose: str) -> str:
    # Keyed: an email may be 254 characters, and neither the table nor the log should list who tried to log in.
    return salted_hmac(purpose, identifier.strip().lower()).hexdigest()


def login_buckets(request, identifier: str) -> list[Bucket]:
    address = client_address(request)
    window = settings.LOGIN_FAILURE_WINDOW_SECONDS
    return [
        Bucket(
            f"email:{email_digest(identifier, 'login-throttle')[:32]}:{address}",
            settings.LOGIN_FAILURE_LIMIT_PER_EMAIL,
            settings.LOGIN_EMAIL_FIRST_LOCK_SECONDS,
            settings.LOGIN_EMAIL_MAX_LOCK_SECONDS,
        ),
        Bucket(f"addr:{address}", settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS, window, window),
    ]


def login_rate_check(request) -> int | None:
    """The per-address rate, counted before any password is hashed: None, or Retry-After seconds."""
    requests, seconds = settings.LOGIN_RATE_PER_ADDRESS
    return rate_windows_hit([Limit(f"login:{client_address(request)}", requests, seconds)])


def login_failure_log(request, identifier: str, outcome: str) -> None:
    """One audit line per failed login (PCI DSS 10.2.1.4, 10.2.2): keyed email hash, client address, outcome."""
    logger.warning(
        "login failed email_hash=%s client=%s path=%s outcome=%s",
        email_digest(identifier, "login-log")[:16],
        client_ip(request) or "unknown",
        request.path,
        outcome,
    )


def _seconds_until(moment: datetime, now: datetime) -> int:
    return max(1, math.ceil((moment - now).total_seconds()))


def login_attempt_reserve(*, buckets: list[Bucket]) -> int | None:
    """Counts one attempt in every bucket. None: go ahead and check the password. Otherwise the attempt is
    refused, and the number is how many seconds until it may be tried again (Retry-After)."""
    now = timezone.now()
    window = timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS)
    LoginThrottle.objects.filter(forget_at__lt=now).delete()
    with transaction.atomic():
        LoginThrottle.objects.bulk_create(
            [LoginThrottle(key=b.key, window_ends_at=now + window, forget_at=now + window) for b in buckets],
            ignore_conflicts=True,
        )
        # Locked in key order, the same in every request, so two requests never wait on each other crosswise.
        rows = {
            row.key: row
            for row in LoginThrottle.objects.select_for_update()
            .filter(key__in=[b.key for b in buckets])
            .order_by("key")
        }
        locked = [row.locked_until for row in rows.values() if row.locked_until and row.locked_until > now]
        if locked:
            return _seconds_until(max(locked), now)
        retry_after = None
        for bucket in buckets:
            row = rows[bucket.key]
            if row.window_ends_at <= now:
                row.attempts, row.window_ends_at = 0, now + window
            if row.locked_until and row.locked_until + window <= now:
                row.lock_level = 0  # quiet for a whole window after its last lock: start again at the first lock
            row.attempts += 1
            if row.attempts > bucket.limit:
                seconds = min(bucket.first_lock_seconds * 2**row.lock_level, bucket.max_lock_seconds)
                row.locked_until = now + timedelta(seconds=seconds)
                row.lock_level = min(row.lock_level + 1, 16)
                row.attempts = 0
                retry_after = max(retry_after or 0, seconds)
            row.forget_at = max(row.window_ends_at, (row.locked_until or now) + window)
            row.save(update_fields=["attempts", "window_ends_at", "locked_until", "lock_level", "forget_at"])
        return retry_after


def login_attempt_succeeded(*, buckets: list[Bucket]) -> None:
    """The right password: the email's failures and lock level are cleared, and the address gets its reserved
    attempt back."""
    email, address = buckets
    LoginThrottle.objects.filter(key=email.key).delete()
    LoginThrottle.objects.filter(key=address.key).update(attempts=Greatest(F("attempts") - 1, 0))
