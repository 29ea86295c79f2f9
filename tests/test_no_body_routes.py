"""The routes that take no body answer one way (vault.serializers.body_refuse): an empty body, `{}` and `null` are
no body; any other JSON, `[]` included, is a 400 that says the route takes no body, before anything else is looked
at."""

from __future__ import annotations

import json
from uuid import uuid4

import pytest

ROUTES = [
    pytest.param(lambda: f"/transactions/{uuid4()}/retry", 404, id="retry"),
    pytest.param(lambda: f"/transactions/{uuid4()}/void", 404, id="void"),
    pytest.param(lambda: f"/webhooks/endpoints/{uuid4()}/rotate-secret", 404, id="rotate-secret"),
    pytest.param(lambda: f"/customers/{uuid4()}/payment-methods/{uuid4()}/set-default", 404, id="set-default"),
    pytest.param(lambda: "/reporting/exports", 202, id="reporting-export"),
]


@pytest.mark.parametrize("body", ["[]", '{"amount": 100}', '"x"', "0", "[{}]"])
@pytest.mark.parametrize(("path", "answered"), ROUTES)
def test_a_body_is_refused(api_client, path, answered, body):
    response = api_client.post(path(), data=body, content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["errors"][0]
    assert (error["field"], error["code"]) == (None, "invalid")
    assert "takes no body" in error["message"]


@pytest.mark.parametrize("body", ["", "{}", "null"])
@pytest.mark.parametrize(("path", "answered"), ROUTES)
def test_no_body_goes_on_to_the_route(api_client, path, answered, body):
    response = api_client.post(path(), data=body, content_type="application/json")
    assert response.status_code == answered, response.content
    if answered == 404:
        assert json.loads(response.content)["errors"][0]["code"] == "not_found"
