"""N11 (security review 2026-11-25): two inputs that reached a 500 are 400s in the envelope: an events cursor whose
digits are not ASCII, and a JSON filter value holding \\u0000 (PostgreSQL refuses NUL in jsonb and text); neither
reaches the database, so its message (which quotes the literal) never reaches the log."""

from __future__ import annotations

import base64
import logging

import pytest

pytestmark = pytest.mark.django_db


def _assert_400(response, field: str | None = None) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == "error"
    if field:
        assert body["errors"][0]["field"] == field


@pytest.mark.parametrize("digits", ["²", "١٢", "１"])
def test_an_events_cursor_with_non_ascii_digits_is_400(api_client, digits):
    cursor = base64.urlsafe_b64encode(f"evt:{digits}".encode()).decode().rstrip("=")
    _assert_400(api_client.get("/events", {"cursor": cursor}), "cursor")


def test_an_events_cursor_past_any_id_is_not_a_500(api_client):
    cursor = base64.urlsafe_b64encode(("evt:" + "9" * 40).encode()).decode().rstrip("=")
    assert api_client.get("/events", {"cursor": cursor}).status_code in (200, 400)


@pytest.mark.parametrize("value", ['"\\u0000"', '{"a\\u0000": 1}', '["x\\u0000y"]'])
def test_a_json_filter_holding_nul_is_400_and_logs_no_literal(api_client, value, caplog):
    with caplog.at_level(logging.INFO):
        response = api_client.get("/reporting/transactions", {"page": 0, "pageSize": 1, "changenewvalue": value})
    _assert_400(response, "changenewvalue")
    assert "LINE 1" not in caplog.text


def test_a_json_body_holding_nul_is_400(api_client):
    response = api_client.post(
        "/customers", '{"firstName": "A\\u0000", "lastName": "B"}', content_type="application/json"
    )
    _assert_400(response)
