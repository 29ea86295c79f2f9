"""Request plumbing that runs before any view: the request id (one per request, in the response header X-Request-ID
and gunicorn's access line, so a client's report and an operator's log line meet without either carrying anything
secret) and the request body limit."""

from __future__ import annotations

import re
from uuid import uuid4
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone

from vault.bounded_json import body_limit
from vault.error_codes import ErrorCode
from vault.views import error_response, not_found

REQUEST_ID_HEADER = "X-Request-ID"
# An id a proxy or client sent is kept when it is a plain token; anything else is replaced, never logged.
ACCEPTED_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


BACK_OFFICE_TIME_ZONE = ZoneInfo("America/New_York")


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        sent = request.headers.get(REQUEST_ID_HEADER, "")
        request.request_id = sent if ACCEPTED_REQUEST_ID.fullmatch(sent) else uuid4().hex
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request.request_id
        return response


class RequestBodyLimitMiddleware:
    """413 in the error envelope for a declared body over MAX_REQUEST_BODY_BYTES, before anything reads it (M5).
    Django reads no more than Content-Length, so a body without one is empty to it, and the parser caps the read."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or "0"
        if declared.isascii() and declared.isdigit() and int(declared) > settings.MAX_REQUEST_BODY_BYTES:
            limit = body_limit(request.path)
            if int(declared) > limit:
                return error_response(413, ErrorCode.REQUEST_TOO_LARGE, f"Request body larger than {limit} bytes.")
        return self.get_response(request)


# Pages people open in a browser: with DEBUG their 404 stays Django's page, which helps there.
BROWSER_PATHS = ("/admin/", "/api/docs/", "/api/redoc/", "/static/")


class DebugJsonNotFoundMiddleware:
    """With DEBUG, Django answers a URL no route matches (an unknown route, a path uuid that is not one) with its
    HTML debug page instead of handler404; an API path gets the error envelope instead, as it does without DEBUG."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 404
            and response.get("Content-Type", "").startswith("text/html")
            and not request.path.startswith(BROWSER_PATHS)
        ):
            return not_found(request)
        return response


class BackOfficeEasternTimeMiddleware:
    """The back office shows times as the business keeps them, US Eastern (cut-offs, windows, the Fed's
    settlement), with the zone written after each (config/formats): the API keeps its one UTC form."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith("/admin/"):
            return self.get_response(request)
        with timezone.override(BACK_OFFICE_TIME_ZONE):
            return self.get_response(request)
