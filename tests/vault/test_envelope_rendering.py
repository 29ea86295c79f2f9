"""The envelope renderer writes JSON with orjson; every value must read exactly as DRF's own renderer writes it."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.renderers import JSONRenderer

from vault.envelope import EnvelopeJSONRenderer, success_body


def test_values_render_as_drf_renders_them():
    payload = {
        "createdAt": datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC),
        "effectiveDate": date(2026, 3, 6),
        "uuid": uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "amount": Decimal("15.50"),
        "message": gettext_lazy("This field is required."),
        "window": timedelta(minutes=5),
        "nested": [{"name": "Zoë \u2028 line", "count": 3, "flag": True, "none": None}],
        7: "an integer key",
    }
    ours = EnvelopeJSONRenderer().render(payload)
    assert ours == JSONRenderer().render(success_body(payload))
    assert b'"createdAt":"2026-03-04T05:06:07.890123Z"' in ours and b"\\u2028" in ours


@pytest.mark.django_db
def test_the_bare_address_points_at_the_docs():
    """Newcomer review 2026-12-07 D13: GET / was a JSON 404."""
    from django.test import Client

    response = Client().get("/")
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    body = response.json()
    assert body["status"] == "success" and body["data"]["docs"] == "/api/docs/"
    assert Client().get(body["data"]["guide"]).status_code == 200
    assert Client().post("/").status_code == 405
