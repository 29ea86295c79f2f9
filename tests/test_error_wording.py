"""F19: errors read alike and help the caller on: DRF's stock field messages in our form, a "did you mean" for an
unknown filter, a hint when an API key is sent as a Bearer token, and the JSON envelope for an unmatched URL also
with DEBUG (Django's HTML debug page stays for the admin and the docs)."""

from __future__ import annotations

import pytest

from tests.transactions.conftest import put_charge

pytestmark = pytest.mark.django_db


def test_a_missing_field_reads_as_our_own_messages(api_client):
    response = put_charge(api_client, {"method": "ACH", "type": "Debit"})
    errors = response.json()["errors"]
    assert (
        response.status_code == 400
        and {"field": "amount", "code": "required", "message": "amount is required"} in errors
    )
    assert response.json()["message"] == errors[0]["message"]


@pytest.mark.parametrize(
    ("url", "meant"),
    [
        ("/reporting/transactions?page=0&pageSize=1&amout:gte=100", "amount"),
        ("/reporting/transactions?page=0&pageSize=1&pagesize=1", "pageSize"),
        ("/customers?emial=a@example.com", "email"),
    ],
)
def test_an_unknown_filter_suggests_the_known_one(api_client, url, meant):
    body = api_client.get(url).json()
    assert body["message"] == "invalid filter" and body["errors"][0]["code"] == "invalid_filter"
    assert body["errors"][0]["message"].endswith(f"; did you mean {meant}?")


def test_an_unknown_filter_like_nothing_known_gets_no_suggestion(api_client):
    (error,) = api_client.get("/customers?colour=red").json()["errors"]
    assert error == {"field": "colour", "code": "invalid_filter", "message": "unknown filter colour"}


def test_an_api_key_sent_after_basic_without_base64_is_told_to_encode_it(anonymous_client, issued_key):
    """Newcomer review 2026-12-07 D4: `-H "Authorization: Basic $KEY"` answered a bare "Invalid API key."."""
    anonymous_client.credentials(HTTP_AUTHORIZATION=f"Basic {issued_key.raw_key}")
    response = anonymous_client.get("/customers")
    assert response.status_code == 401
    assert "base64(<apiKey>:)" in response.json()["message"] and '-u "$KEY:"' in response.json()["message"]
    anonymous_client.credentials(HTTP_AUTHORIZATION="Basic not-a-key")
    assert anonymous_client.get("/customers").json()["message"] == "Invalid API key."


def test_an_api_key_sent_as_bearer_is_told_to_use_basic(anonymous_client, issued_key):
    anonymous_client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued_key.raw_key}")
    response = anonymous_client.get("/customers")
    assert response.status_code == 401
    assert "looks like an API key" in response.json()["message"] and "Basic" in response.json()["message"]
    anonymous_client.credentials(HTTP_AUTHORIZATION="Bearer not.a.token")
    assert anonymous_client.get("/customers").json()["message"] == "Invalid or expired token."


@pytest.mark.parametrize("url", ["/no-such-route", "/customers/not-a-uuid", "/transactions/123/events"])
def test_with_debug_an_unmatched_url_answers_the_json_envelope(api_client, debug_mode, url):
    response = api_client.get(url)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json()["errors"][0]["code"] == "not_found" and response["X-Request-ID"]


def test_with_debug_the_admin_keeps_django_s_page(client, debug_mode):
    response = client.get("/admin/no-such-page/")
    assert response.status_code in (302, 404) and "json" not in response.get("Content-Type", "")
