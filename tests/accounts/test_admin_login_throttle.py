"""H3, N7: /admin/login/ is throttled in the same buckets as POST /auth/login (accounts/login_throttle.py), per
(email, client address): failures from elsewhere never keep an operator out."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.utils import timezone

from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


@pytest.fixture(autouse=True)
def _no_address_rate(settings):
    settings.LOGIN_RATE_PER_ADDRESS = (10_000, 60)


def _admin_login(client: Client, email: str, password: str, address: str = "203.0.113.7"):
    return client.post("/admin/login/", {"username": email, "password": password}, REMOTE_ADDR=address)


def _logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_thirty_wrong_passwords_then_the_right_one_does_not_log_in_until_the_lock_expires(db):
    staff = factories.UserFactory(is_staff=True, is_superuser=True, email="ops@example.com")
    client = Client()
    for n in range(30):
        assert _admin_login(client, staff.email, f"wrong{n}").status_code == 200
    response = _admin_login(client, staff.email, PASSWORD)
    assert response.status_code == 200 and not _logged_in(client)
    assert "Too many failed login attempts" in response.content.decode()
    # 30 attempts locked the address for the window and the email: both must have expired.
    with time_machine.travel(timezone.now() + timedelta(seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS + 1)):
        response = _admin_login(client, staff.email, PASSWORD)
        assert response.status_code == 302 and _logged_in(client)


def test_the_right_password_after_four_wrong_ones_logs_in(db):
    staff = factories.UserFactory(is_staff=True)
    client = Client()
    for _ in range(4):
        _admin_login(client, staff.email, "wrong")
    assert _admin_login(client, staff.email, PASSWORD).status_code == 302 and _logged_in(client)


def test_failures_on_the_api_login_lock_the_admin_login_of_that_email_from_that_address(anonymous_client):
    staff = factories.UserFactory(is_staff=True)
    for _ in range(5):
        anonymous_client.post(
            "/auth/login", {"email": staff.email, "password": "wrong"}, format="json", REMOTE_ADDR="198.51.100.1"
        )
    client = Client()
    response = _admin_login(client, staff.email.upper(), PASSWORD, address="198.51.100.1")
    assert not _logged_in(client) and "Too many failed login attempts" in response.content.decode()


def test_a_superuser_locked_at_one_address_signs_in_from_another(db):
    """N7 on /admin/login/: six anonymous wrong passwords no longer keep the operator out."""
    root = factories.UserFactory(is_staff=True, is_superuser=True, email="root@example.com")
    for n in range(6):
        _admin_login(Client(), root.email, f"wrong{n}", address="203.0.113.50")
    locked = Client()
    _admin_login(locked, root.email, PASSWORD, address="203.0.113.50")
    assert not _logged_in(locked)
    client = Client()
    assert _admin_login(client, root.email, PASSWORD, address="198.51.100.20").status_code == 302
    assert _logged_in(client)


def test_the_admin_login_counts_per_client_address_too(db):
    staff = factories.UserFactory(is_staff=True)
    client = Client()
    for n in range(20):
        _admin_login(client, f"nobody{n}@example.com", "wrong")
    _admin_login(client, staff.email, PASSWORD)
    assert not _logged_in(client)
    _admin_login(client, staff.email, PASSWORD, address="198.51.100.9")
    assert _logged_in(client)
