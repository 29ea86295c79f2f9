"""Request plumbing that must run before any view reads the body."""

from __future__ import annotations

from django.conf import settings

from vault.views import error_response


class RequestBodyLimitMiddleware:
    """413 in the error envelope for a declared body over MAX_REQUEST_BODY_BYTES, before anything reads it (M5).
    Django reads no more than Content-Length, so a body without one is empty to it, and the parser caps the read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if declared.isascii() and declared.isdigit() and int(declared) > settings.MAX_REQUEST_BODY_BYTES:
            return error_response(
                413, "request_too_large", f"Request body larger than {settings.MAX_REQUEST_BODY_BYTES} bytes."
            )
        return self.get_response(request)
