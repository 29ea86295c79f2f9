"""The response envelope of CONTRACT 4, applied by the renderer to every DRF response."""
from __future__ import annotations

from typing import Any

from rest_framework.renderers import JSONRenderer


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
                data = error_body(message, [{"field": None, "code": "error", "message": message}])
            else:
                data = success_body(data)
        return super().render(data, accepted_media_type, renderer_context)
