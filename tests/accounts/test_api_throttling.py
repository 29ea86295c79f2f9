"""L6 (security review 2026-11-25): API requests are throttled per credential (API key, or user with a Bearer
token) and per company, in fixed windows on the shared store; past a limit, 429 `throttled` with Retry-After in
the header and the envelope. One company's traffic never throttles another's."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time

import pytest
from django.core.cache import caches
from rest_framework.test import APIClient

from accounts.rate_windows import Limit, rate_windows_hit
from tests import factories
from tests.accounts.conftest import bearer_client

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("early_in_a_minute")]


def _client(issued) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued.authorization)
    return client


def test_a_key_past_its_rate_is_429_with_retry_after_in_header_and_envelope(settings, company):
    settings.API_THROTTLE_RATE_PER_CREDENTIAL = (3, 60)
    client = _client(factories.issue_api_key(company))
    assert [client.get("/customers").status_code for _ in range(3)] == [200, 200, 200]
    response = client.get("/customers")
    assert response.status_code == 429
    body = response.json()
    assert body["status"] == "error" and body["errors"][0]["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert body["data"] == {"retryAfter": int(response["Retry-After"])}


def test_another_key_of_the_company_has_its_own_credential_window(settings, company):
    settings.API_THROTTLE_RATE_PER_CREDENTIAL = (2, 60)
    first, second = _client(factories.issue_api_key(company)), _client(factories.issue_api_key(company))
    for _ in range(2):
        first.get("/customers")
    assert first.get("/customers").status_code == 429
    assert second.get("/customers").status_code == 200


def test_the_company_limit_covers_all_its_keys_and_users_but_not_other_companies(settings, company, other_company):
    settings.API_THROTTLE_RATE_PER_COMPANY = (4, 60)
    user = factories.UserFactory()
    factories.membership(user, company, "admin")
    keys = [_client(factories.issue_api_key(company)) for _ in range(2)]
    token = bearer_client(user)
    assert [keys[0].get("/customers").status_code, keys[1].get("/customers").status_code] == [200, 200]
    assert token.get("/customers", {"entityUuid": str(company.uuid)}).status_code == 200
    assert keys[0].get("/customers").status_code == 200
    assert keys[1].get("/customers").status_code == 429
    assert token.get("/customers", {"entityUuid": str(company.uuid)}).status_code == 429
    assert _client(factories.issue_api_key(other_company)).get("/customers").status_code == 200


def test_refused_requests_count_nowhere(settings, company, other_company):
    """A 401 or 403 never reaches the throttle: nobody spends a company's budget without its credentials."""
    settings.API_THROTTLE_RATE_PER_COMPANY = (2, 60)
    client = _client(factories.issue_api_key(company))
    for _ in range(5):
        assert client.get("/customers", {"entityUuid": str(other_company.uuid)}).status_code == 403
    assert client.get("/customers").status_code == 200


def test_the_window_ends_and_the_count_starts_again(db):
    limit = Limit("test:window", 2, 1)
    while time.time() % 1 > 0.5:  # start early in a one-second window, so three hits share it
        time.sleep(0.05)
    assert [rate_windows_hit([limit]) for _ in range(3)] == [None, None, 1]
    time.sleep(1.1)
    assert rate_windows_hit([limit]) is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def redis_cache(settings, tmp_path):
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    port = _free_port()
    process = subprocess.Popen(  # noqa: S603 - redis-server found on PATH, fixed arguments
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        settings.CACHES = {
            **settings.CACHES,
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{port}/0",
            },
        }
        yield caches["default"]
    finally:
        caches["default"].close()
        process.terminate()
        process.wait(10)


def test_with_redis_the_counters_live_in_redis(redis_cache, settings, company):
    settings.API_THROTTLE_RATE_PER_CREDENTIAL = (2, 60)
    client = _client(factories.issue_api_key(company))
    assert [client.get("/customers").status_code for _ in range(3)] == [200, 200, 429]
    keys = redis_cache._cache.get_client().keys("*rate:*")
    assert len(keys) == 2
    assert all(0 < redis_cache._cache.get_client().ttl(key) <= 62 for key in keys)
