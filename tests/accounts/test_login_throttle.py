"""Brute-force guard on POST /auth/login: 5 failures per (email, client address), 20 per client address, then 429;
the pair's lock expires and doubles each time up to 15 minutes; the client address honours TRUSTED_PROXY_HOPS; the
counts are exact under 20 parallel guesses on PostgreSQL. The per-address rate that runs before any password hash
has its own tests (test_login_rate.py); here it is out of the way."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone
from rest_framework.test import APIClient

from tests import factories
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _no_address_rate(settings):
    settings.LOGIN_RATE_PER_ADDRESS = (10_000, 60)


def _login(client: APIClient, email: str, password: str, address: str = "203.0.113.7"):
    return client.post("/auth/login", {"email": email, "password": password}, format="json", REMOTE_ADDR=address)


def test_sixth_attempt_after_five_bad_passwords_is_429_even_with_the_right_password(anonymous_client):
    user = factories.UserFactory()
    for _ in range(5):
        assert _login(anonymous_client, user.email, "wrong password").status_code == 401
    response = _login(anonymous_client, user.email, PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) == settings.LOGIN_EMAIL_FIRST_LOCK_SECONDS
    assert response.json()["errors"][0]["code"] == "throttled"
    assert "accessToken" not in response.content.decode()


def test_email_lockout_ignores_the_case_of_the_email(anonymous_client):
    user = factories.UserFactory()
    for _ in range(5):
        _login(anonymous_client, user.email.upper(), "wrong password")
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 429


def test_the_right_password_from_another_address_still_works(anonymous_client):
    """N7: failures from one address lock that address out of the account, not the account's owner."""
    user = factories.UserFactory()
    for _ in range(5):
        _login(anonymous_client, user.email, "wrong password", address="203.0.113.7")
    assert _login(anonymous_client, user.email, PASSWORD, address="203.0.113.7").status_code == 429
    assert _login(anonymous_client, user.email, PASSWORD, address="198.51.100.9").status_code == 200


def test_anonymous_failures_from_many_addresses_never_lock_the_owner_out(anonymous_client):
    """The review's reproduction: 6 wrong attempts from 6 addresses used to lock any user, superusers included."""
    user = factories.UserFactory(is_staff=True, is_superuser=True)
    for round_ in range(3):
        for n in range(6):
            address = f"203.0.113.{100 + 10 * round_ + n}"
            assert _login(anonymous_client, user.email, f"wrong-{n}", address=address).status_code == 401
        assert _login(anonymous_client, user.email, PASSWORD, address="198.51.100.9").status_code == 200


def test_four_bad_passwords_then_the_right_one_logs_in(anonymous_client):
    user = factories.UserFactory()
    for _ in range(4):
        _login(anonymous_client, user.email, "wrong password")
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 200


def test_twenty_bad_attempts_from_one_address_across_emails_is_429(anonymous_client):
    user = factories.UserFactory()
    for attempt in range(20):
        # Never more than one failure per email, so only the address counter can trip.
        assert _login(anonymous_client, f"nobody{attempt}@example.com", "wrong password").status_code == 401
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 429
    assert _login(anonymous_client, user.email, PASSWORD, address="198.51.100.9").status_code == 200


def test_a_254_character_email_is_throttled_too(anonymous_client):
    user = factories.UserFactory(email="a" * 242 + "@example.com")
    for _ in range(5):
        assert _login(anonymous_client, user.email, "wrong password").status_code == 401
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 429


def test_successful_logins_do_not_use_up_the_address_budget(anonymous_client):
    user = factories.UserFactory()
    for _ in range(25):
        assert _login(anonymous_client, user.email, PASSWORD).status_code == 200


def test_a_successful_login_clears_the_emails_failures(anonymous_client):
    user = factories.UserFactory()
    for _ in range(4):
        _login(anonymous_client, user.email, "wrong password")
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 200
    for _ in range(4):
        assert _login(anonymous_client, user.email, "wrong password").status_code == 401
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 200


def _later(seconds: float):
    return time_machine.travel(timezone.now() + timedelta(seconds=seconds), tick=True)


def test_the_email_lock_expires_and_the_right_password_then_logs_in(anonymous_client):
    user = factories.UserFactory()
    for _ in range(5):
        _login(anonymous_client, user.email, "wrong password")
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 429
    with _later(settings.LOGIN_EMAIL_FIRST_LOCK_SECONDS + 1):
        assert _login(anonymous_client, user.email, PASSWORD).status_code == 200


def test_each_new_lock_lasts_twice_as_long_up_to_fifteen_minutes(anonymous_client, settings):
    settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS = 1000  # only the (email, address) lock is in play
    user = factories.UserFactory()
    elapsed, locks = 0.0, []
    address = "203.0.113.10"
    for _round in range(7):
        with _later(elapsed):
            for _ in range(5):
                assert _login(anonymous_client, user.email, "wrong password", address).status_code == 401
            refused = _login(anonymous_client, user.email, "wrong password", address)
            assert refused.status_code == 429
            locks.append(int(refused["Retry-After"]))
            # While locked, even the right password is refused and does not extend the lock.
            again = _login(anonymous_client, user.email, PASSWORD, address)
            assert again.status_code == 429 and int(again["Retry-After"]) <= locks[-1]
        elapsed += locks[-1] + 1
    assert locks == [60, 120, 240, 480, 900, 900, 900]
    with _later(elapsed):
        assert _login(anonymous_client, user.email, PASSWORD).status_code == 200


def test_the_backoff_starts_again_after_a_quiet_window(anonymous_client):
    user = factories.UserFactory()
    for _ in range(6):
        _login(anonymous_client, user.email, "wrong password")
    quiet = settings.LOGIN_EMAIL_FIRST_LOCK_SECONDS + settings.LOGIN_FAILURE_WINDOW_SECONDS + 1
    with _later(quiet):
        for _ in range(5):
            _login(anonymous_client, user.email, "wrong password")
        assert int(_login(anonymous_client, user.email, "wrong password")["Retry-After"]) == 60


def _login_via(client, email, password, remote, forwarded):
    return client.post(
        "/auth/login",
        {"email": email, "password": password},
        format="json",
        REMOTE_ADDR=remote,
        HTTP_X_FORWARDED_FOR=forwarded,
    )


def test_without_trusted_hops_x_forwarded_for_is_ignored(anonymous_client, settings):
    settings.TRUSTED_PROXY_HOPS = 0
    user = factories.UserFactory()
    for attempt in range(20):
        _login_via(anonymous_client, f"nobody{attempt}@example.com", "x", "10.0.0.1", f"198.51.100.{attempt}")
    assert _login_via(anonymous_client, user.email, PASSWORD, "10.0.0.1", "192.0.2.200").status_code == 429


def test_behind_one_trusted_proxy_each_client_has_its_own_address_budget(anonymous_client, settings):
    settings.TRUSTED_PROXY_HOPS = 1
    user = factories.UserFactory()
    for attempt in range(20):
        # The attacker forges entries on the left; the proxy appends the real address on the right.
        forged = f"192.0.2.{attempt}, 203.0.113.66"
        assert _login_via(anonymous_client, f"nobody{attempt}@example.com", "x", "10.0.0.1", forged).status_code == 401
    assert _login_via(anonymous_client, user.email, PASSWORD, "10.0.0.1", "203.0.113.66").status_code == 429
    # Another client behind the same load balancer is not locked out.
    assert _login_via(anonymous_client, user.email, PASSWORD, "10.0.0.1", "198.51.100.9").status_code == 200


def test_two_trusted_hops_take_the_second_entry_from_the_right(anonymous_client, settings):
    settings.TRUSTED_PROXY_HOPS = 2
    user = factories.UserFactory()
    for attempt in range(20):
        chain = f"192.0.2.{attempt}, 203.0.113.66, 10.0.0.2"
        _login_via(anonymous_client, f"nobody{attempt}@example.com", "x", "10.0.0.1", chain)
    assert _login_via(anonymous_client, user.email, PASSWORD, "10.0.0.1", "203.0.113.66, 10.0.0.2").status_code == 429
    assert _login_via(anonymous_client, user.email, PASSWORD, "10.0.0.1", "203.0.113.67, 10.0.0.2").status_code == 200


def test_ipv6_addresses_share_a_budget_per_64(anonymous_client):
    user = factories.UserFactory()
    for attempt in range(20):
        _login(anonymous_client, f"nobody{attempt}@example.com", "x", address=f"2001:db8:1:2::{attempt + 1:x}")
    assert _login(anonymous_client, user.email, PASSWORD, address="2001:db8:1:2:ffff::1").status_code == 429
    assert _login(anonymous_client, user.email, PASSWORD, address="2001:db8:1:3::1").status_code == 200


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_guesses_at_one_email_check_exactly_five_passwords():
    user = factories.UserFactory()
    codes = at_once(lambda: _login(APIClient(), user.email, "wrong password").status_code, 20)
    assert sorted(codes) == [401] * 5 + [429] * 15


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_guesses_from_one_address_pass_its_limit_exactly(settings):
    settings.LOGIN_FAILURE_LIMIT_PER_ADDRESS = 7
    emails = iter([f"guess{n}@example.com" for n in range(20)])
    lock = threading.Lock()

    def guess() -> int:
        with lock:
            email = next(emails)
        return _login(APIClient(), email, "wrong password", address="198.51.100.1").status_code

    assert sorted(at_once(guess, 20)) == [401] * 7 + [429] * 13
