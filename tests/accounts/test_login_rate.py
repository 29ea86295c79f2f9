"""N7/L6: before any password is hashed (an unauthenticated login costs ~650 ms of CPU), login attempts are counted
per client address, whatever their outcome (LOGIN_RATE_PER_ADDRESS), on /auth/login and /admin/login/ alike; and
every failed login is logged with a keyed hash of the email and the client address, never the email itself."""

from __future__ import annotations

import logging

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client

from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("early_in_a_minute")]

PASSWORD = "correct horse battery"
HASHED: list[str] = []


class CountingHasher(MD5PasswordHasher):
    """A real hasher that notes each password it hashes or checks."""

    algorithm = "counted_md5"

    def encode(self, password, salt):
        HASHED.append(password)
        return super().encode(password, salt)


@pytest.fixture(autouse=True)
def _counting_hasher(settings):
    settings.PASSWORD_HASHERS = ["tests.accounts.test_login_rate.CountingHasher"]
    settings.LOGIN_RATE_PER_ADDRESS = (3, 60)
    HASHED.clear()


def _login(client, email: str, password: str, address: str = "203.0.113.7"):
    return client.post("/auth/login", {"email": email, "password": password}, format="json", REMOTE_ADDR=address)


def test_past_the_address_rate_no_password_is_hashed(anonymous_client):
    user = factories.UserFactory()
    HASHED.clear()
    codes = [_login(anonymous_client, f"nobody{n}@example.com", f"guess-{n}").status_code for n in range(3)]
    assert codes == [401, 401, 401]
    checked = len(HASHED)
    refused = _login(anonymous_client, user.email, PASSWORD)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert refused.json()["errors"][0]["code"] == "throttled"
    assert len(HASHED) == checked  # the refused attempt hashed nothing
    assert _login(anonymous_client, user.email, PASSWORD, address="198.51.100.9").status_code == 200


def test_successful_logins_count_against_the_rate_too(anonymous_client):
    user = factories.UserFactory()
    assert [_login(anonymous_client, user.email, PASSWORD).status_code for _ in range(4)] == [200, 200, 200, 429]


def test_the_admin_login_shares_the_address_rate(anonymous_client):
    staff = factories.UserFactory(is_staff=True)
    for n in range(3):
        _login(anonymous_client, f"nobody{n}@example.com", "x")
    HASHED.clear()
    client = Client()
    response = client.post("/admin/login/", {"username": staff.email, "password": PASSWORD}, REMOTE_ADDR="203.0.113.7")
    assert "Too many failed login attempts" in response.content.decode()
    assert HASHED == []


def test_a_failed_login_is_logged_with_a_hashed_email_and_the_client_address(anonymous_client, caplog, settings):
    settings.TRUSTED_PROXY_HOPS = 1
    user = factories.UserFactory(email="victim@example.com")
    with caplog.at_level(logging.WARNING, logger="vault.auth"):
        anonymous_client.post(
            "/auth/login",
            {"email": user.email, "password": "wrong"},
            format="json",
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR="198.51.100.77",
        )
        Client().post("/admin/login/", {"username": "VICTIM@example.com", "password": "wrong"}, REMOTE_ADDR="10.0.0.9")
    lines = [r.getMessage() for r in caplog.records if r.name == "vault.auth"]
    assert len(lines) == 2
    assert "client=198.51.100.77" in lines[0] and "outcome=bad_credentials" in lines[0]
    assert "client=10.0.0.9" in lines[1] and "path=/admin/login/" in lines[1]
    # The same keyed hash for the same account, however it was typed; never the email itself.
    assert lines[0].split("email_hash=")[1].split()[0] == lines[1].split("email_hash=")[1].split()[0]
    assert "victim" not in caplog.text.lower()
