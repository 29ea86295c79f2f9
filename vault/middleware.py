"""Request id: one id per request, in the response header X-Request-ID and gunicorn's access line, so a client's
report and an operator's log line meet without either carrying anything secret."""

from __future__ import annotations

import re
from uuid import uuid4

REQUEST_ID_HEADER = "X-Request-ID"
# An id a proxy or client sent is kept when it is a plain token; anything else is replaced, never logged.
ACCEPTED_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{8,64}")


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        sent = request.headers.get(REQUEST_ID_HEADER, "")
        request.request_id = sent if ACCEPTED_REQUEST_ID.fullmatch(sent) else uuid4().hex
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = request.request_id
        return response
