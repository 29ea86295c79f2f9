"""Brute-force guard on POST /auth/login: 5 failures per email, 20 per client address, then 429."""

from __future__ import annotations

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from tests import factories

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery"


def _login(client: APIClient, email: str, password: str, address: str = "203.0.113.7"):
    return client.post("/auth/login", {"email": email, "password": password}, format="json", REMOTE_ADDR=address)


def test_sixth_attempt_after_five_bad_passwords_is_429_even_with_the_right_password(anonymous_client):
    user = factories.UserFactory()
    for _ in range(5):
        assert _login(anonymous_client, user.email, "wrong password").status_code == 401
    response = _login(anonymous_client, user.email, PASSWORD)
    assert response.status_code == 429
    assert int(response["Retry-After"]) == settings.LOGIN_FAILURE_WINDOW_SECONDS
    assert response.json()["errors"][0]["code"] == "throttled"
    assert "accessToken" not in response.content.decode()


def test_email_lockout_ignores_the_case_of_the_email(anonymous_client):
    user = factories.UserFactory()
    for _ in range(5):
        _login(anonymous_client, user.email.upper(), "wrong password")
    assert _login(anonymous_client, user.email, PASSWORD).status_code == 429


def test_email_lockout_holds_from_another_address(anonymous_client):
    user = factories.UserFactory()
    for _ in range(5):
        _login(anonymous_client, user.email, "wrong password", address="203.0.113.7")
    assert _login(anonymous_client, user.email, PASSWORD, address="198.51.100.9").status_code == 429


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
