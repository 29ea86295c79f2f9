"""M5, L1 (CONTRACT 4): bounded input never gives a 5xx. A body over MAX_REQUEST_BODY_BYTES is 413, JSON nested
deeper than 32 levels is 400 in bodies and in JSON filter values, and the inputs the review found 500s with are 4xx."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from tests import factories

pytestmark = pytest.mark.django_db

REPORT = "/reporting/transactions"


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _assert_envelope(response, status: int, code: str | None = None) -> None:
    assert response.status_code == status, response.content[:300]
    body = response.json()
    assert body["status"] == "error" and body["data"] is None and body["message"]
    if code:
        assert body["errors"][0]["code"] == code


@pytest.mark.parametrize(
    "params",
    [
        {"page": "²", "pageSize": "5"},
        {"page": "١", "pageSize": "5"},
        {"page": "0", "pageSize": "²"},
        {"page": "0", "pageSize": "١"},
    ],
)
@pytest.mark.parametrize("path", ["/customers", REPORT])
def test_non_ascii_digits_in_paging_are_400(api_client, path, params):
    _assert_envelope(api_client.get(path, params), 400)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("createdat", "9999-12-31"),
        ("createdat:gt", "9999-12-31"),
        ("createdat:lte", "9999-12-31"),
        ("createdat:neq", "9999-12-31"),
        ("createdat:between", "2026-01-01,9999-12-31"),
        ("createdat:in", "9999-12-31,2026-01-01"),
        ("createdat:gt", "0001-01-01"),
        ("createdat:lt", "0001-01-01"),
        ("createdat", "0001-01-01T00:00:00Z"),
        ("effectivedate:gt", "9999-12-31"),
    ],
)
def test_dates_at_the_ends_of_the_calendar_answer_200(api_client, company, name, value):
    factories.TransactionFactory(company=company)
    response = api_client.get(REPORT, {"page": "0", "pageSize": "5", name: value})
    assert response.status_code == 200, response.content[:300]


def test_the_last_day_of_the_calendar_matches_nothing_later_and_everything_before(api_client, company):
    factories.TransactionFactory(company=company)
    base = {"page": "0", "pageSize": "5"}
    assert api_client.get(REPORT, {**base, "createdat": "9999-12-31"}).json()["data"] == []
    assert api_client.get(REPORT, {**base, "createdat:gt": "9999-12-31"}).json()["data"] == []
    assert len(api_client.get(REPORT, {**base, "createdat:lte": "9999-12-31"}).json()["data"]) == 1
    assert len(api_client.get(REPORT, {**base, "createdat:gt": "0001-01-01"}).json()["data"]) == 1


def test_between_with_one_value_is_400(api_client):
    _assert_envelope(api_client.get(REPORT, {"page": "0", "pageSize": "5", "amount:between": "1"}), 400)


@pytest.mark.parametrize(
    "value", [_nested(33), _nested(1200), "[" * 100_000, "1e999", "[1e999]", "NaN", '{"a":-Infinity}']
)
def test_json_filter_values_too_deep_or_not_finite_are_400(api_client, value):
    response = api_client.get(REPORT, {"page": "0", "pageSize": "5", "changenewvalue": value})
    _assert_envelope(response, 400)
    assert response.json()["errors"][0]["field"] == "changenewvalue"


def test_a_json_filter_value_32_deep_is_accepted(api_client):
    assert api_client.get(REPORT, {"page": "0", "pageSize": "5", "changenewvalue": _nested(32)}).status_code == 200


WRITE_ROUTES = [
    ("POST", "/auth/login"),
    ("POST", "/auth/refresh"),
    ("PUT", "/transactions"),
    ("POST", "/customers"),
    ("POST", "/customers/payment-methods"),
]


@pytest.mark.parametrize(("method", "path"), WRITE_ROUTES)
@pytest.mark.parametrize("depth", [33, 100_000])
def test_bodies_nested_deeper_than_32_levels_are_400(api_client, method, path, depth):
    response = api_client.generic(method, path, _nested(depth), content_type="application/json")
    _assert_envelope(response, 400, "parse_error")


def test_an_unclosed_100000_deep_array_is_400_unauthenticated(db):
    response = APIClient().generic("POST", "/auth/login", "[" * 100_000, content_type="application/json")
    _assert_envelope(response, 400, "parse_error")


def test_a_body_32_levels_deep_is_parsed(api_client):
    body = '{"firstName": ' + _nested(31) + "}"  # the object is level 1
    response = api_client.generic("POST", "/customers", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] != "parse_error"


@pytest.mark.parametrize(("method", "path"), [*WRITE_ROUTES, ("POST", "/transactions/{uuid}/reverse")])
def test_a_30_mb_body_is_413_in_the_envelope(api_client, company, method, path):
    txn = factories.TransactionFactory(company=company, status="Settled")
    body = b'{"a": "' + b"x" * (30 * 1024 * 1024) + b'"}'
    response = api_client.generic(method, path.format(uuid=txn.uuid), body, content_type="application/json")
    _assert_envelope(response, 413, "request_too_large")
    txn.refresh_from_db()
    assert txn.status == "Settled"


def test_a_body_just_over_the_configured_limit_is_413_and_just_under_is_parsed(api_client, settings):
    settings.MAX_REQUEST_BODY_BYTES = 4096
    over = json.dumps({"firstName": "x" * 4100})
    _assert_envelope(api_client.generic("POST", "/customers", over, content_type="application/json"), 413)
    under = json.dumps({"firstName": "x" * 4000})
    assert api_client.generic("POST", "/customers", under, content_type="application/json").status_code == 400


def test_the_parser_caps_a_body_read_without_a_content_length(api_client, settings):
    settings.MAX_REQUEST_BODY_BYTES = 4096
    from vault.bounded_json import BoundedJSONParser, RequestTooLarge

    class Stream:
        def __init__(self) -> None:
            self.asked: list[int] = []

        def read(self, size: int = -1) -> bytes:
            self.asked.append(size)
            return b"[" * size

    stream = Stream()
    with pytest.raises(RequestTooLarge):
        BoundedJSONParser().parse(stream, "application/json", {})
    assert stream.asked == [4097]


@pytest.mark.parametrize(("name", "value"), [("name", "a\x00b"), ("name:like", "\x00"), ("externaluniqueid", "\x00")])
def test_a_nul_character_in_a_filter_value_is_400(api_client, name, value):
    response = api_client.get(REPORT, {"page": "0", "pageSize": "5", name: value})
    _assert_envelope(response, 400, "invalid_filter")
