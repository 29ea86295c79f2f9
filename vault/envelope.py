"""The response envelope of CONTRACT 4, applied by the renderer to every DRF response."""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

from vault.error_codes import ErrorCode

# The query parameter naming the company a Bearer token acts for: accounts.permissions reads it, the schema documents
# it. It lives here, not in vault.openapi, because DRF imports the permission class while it loads its own views,
# before drf_spectacular (which vault.openapi needs) can be imported.
ENTITY_PARAM = "entityUuid"

# orjson writes what it knows natively (str, int, float, dict, list, UUID, date) several times faster than the
# json module; everything else, datetimes included, goes to DRF's encoder, so every value reads as DRF writes it.
_DRF_DEFAULT = JSONEncoder().default
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS
# A strict JavaScript subset, as DRF's renderer writes it.
_LINE_SEPARATORS = ((b"\xe2\x80\xa8", b"\\u2028"), (b"\xe2\x80\xa9", b"\\u2029"))


class Enveloped(dict):
    """A body that is already a whole envelope; the renderer passes it through untouched."""


def success_body(data: Any, **extra: Any) -> Enveloped:
    return Enveloped(status="success", data=data, **extra)


def error_body(message: str, errors: list[dict[str, Any]], data: Any = None) -> Enveloped:
    return Enveloped(status="error", data=data, message=message, errors=errors)


class EnvelopeJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        response = (renderer_context or {}).get("response")
        if response is not None and response.status_code == 204:
            return b""
        if not isinstance(data, Enveloped):
            if response is not None and response.status_code >= 400:
                message = "Request failed."
                data = error_body(message, [{"field": None, "code": ErrorCode.ERROR, "message": message}])
            else:
                data = success_body(data)
        body = orjson.dumps(data, default=_DRF_DEFAULT, option=_ORJSON_OPTIONS)
        for raw, escaped in _LINE_SEPARATORS:
            if raw in body:
                body = body.replace(raw, escaped)
        return body
