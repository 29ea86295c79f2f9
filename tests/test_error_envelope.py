"""CONTRACT 4: every failure, DRF's and Django's included, answers in the error envelope; no trace leaks."""

from __future__ import annotations

import pytest

from tests import factories
from tests.accounts.conftest import probe_urls  # noqa: F401 (fixture: routes that fail on purpose)

pytestmark = pytest.mark.django_db


def _assert_envelope(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"status", "data", "message", "errors"}
    assert body["status"] == "error" and body["data"] is None and body["message"]
    assert all(set(error) == {"field", "code", "message"} for error in body["errors"])
    if code is not None:
        assert body["errors"][0]["code"] == code
    return body


def test_wrong_method_is_405_envelope(anonymous_client):
    _assert_envelope(anonymous_client.delete("/auth/login"), 405, "method_not_allowed")


def test_text_plain_body_is_415_envelope(anonymous_client):
    response = anonymous_client.generic("POST", "/auth/login", "email=a&password=b", content_type="text/plain")
    _assert_envelope(response, 415, "unsupported_media_type")


@pytest.mark.parametrize("raw", ["{not json", '{"email": "a@example.com",', "\x00\x01", '{"email": NaN}'])
def test_malformed_json_is_400_envelope(anonymous_client, raw):
    response = anonymous_client.generic("POST", "/auth/login", raw, content_type="application/json")
    _assert_envelope(response, 400)


@pytest.mark.parametrize("raw", ["[]", '"text"', "12", "null"])
def test_json_that_is_not_an_object_is_400_envelope(anonymous_client, raw):
    response = anonymous_client.generic("POST", "/auth/login", raw, content_type="application/json")
    _assert_envelope(response, 400)


def test_unknown_body_field_on_login_is_400_naming_it(anonymous_client):
    user = factories.UserFactory()
    body = {"email": user.email, "password": "correct horse battery", "rememberMe": True}
    response = anonymous_client.post("/auth/login", body, format="json")
    envelope = _assert_envelope(response, 400, "unknown_field")
    assert envelope["errors"][0]["field"] == "rememberMe"
    assert "rememberMe" in envelope["message"]


@pytest.mark.parametrize("body", [{"email": 5, "password": "x"}, {"email": "a@example.com"}, {"password": "x"}])
def test_wrong_type_or_missing_login_field_is_400_naming_it(anonymous_client, body):
    envelope = _assert_envelope(anonymous_client.post("/auth/login", body, format="json"), 400)
    assert envelope["errors"][0]["field"] in {"email", "password"}


def test_unknown_path_is_django_404_envelope(anonymous_client):
    _assert_envelope(anonymous_client.get("/no/such/route"), 404, "not_found")


def test_path_with_a_bad_uuid_is_404_envelope(api_client):
    _assert_envelope(api_client.get("/customers/not-a-uuid"), 404, "not_found")


@pytest.mark.usefixtures("probe_urls")
@pytest.mark.parametrize("path", ["/probe/boom", "/probe/django-boom"])
def test_unexpected_exception_is_500_envelope_without_traceback(client, path):
    client.raise_request_exception = False
    response = client.get(path)
    body = _assert_envelope(response, 500, "server_error")
    text = response.content.decode()
    assert body["message"] == "Internal server error."
    for leak in ("Traceback", "RuntimeError", "secret internals", "/srv/app.py"):
        assert leak not in text


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_dropped_database_connection_is_503_envelope_and_the_next_request_recovers(api_client):
    """Connections are reused without a per-request health check (CONN_MAX_AGE), so one killed under a
    request must answer 503 with Retry-After, not a 500, and the retry must succeed."""
    import psycopg
    from django.conf import settings
    from django.db import connection

    assert api_client.get("/customers?page=0&pageSize=1").status_code == 200
    backend_pid = connection.connection.info.backend_pid
    settings_dict = connection.settings_dict
    with psycopg.connect(
        host=settings_dict["HOST"],
        port=settings_dict["PORT"] or 5432,
        user=settings_dict["USER"],
        dbname=settings_dict["NAME"],
        autocommit=True,
    ) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", [backend_pid])
    try:
        response = api_client.get("/customers?page=0&pageSize=1")
        if settings.DATABASE_POOL_MODE == "transaction":
            # Through pgbouncer the killed backend was a pooled server connection between transactions: the pooler
            # hands the next transaction another one, and the request never notices.
            assert response.status_code == 200, response.content
        else:
            _assert_envelope(response, 503, "service_unavailable")
            assert response["Retry-After"] == "1"
    finally:
        connection.close_if_unusable_or_obsolete()
    assert api_client.get("/customers?page=0&pageSize=1").status_code == 200
