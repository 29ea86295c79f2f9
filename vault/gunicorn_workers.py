"""gunicorn workers whose own refusals are in the API's error envelope (CONTRACT 4): a request line past
`limit_request_line` is 414 `uri_too_long`, a header past `limit_request_field_size` (or more than
`limit_request_fields` of them) is 431 `header_too_large`, instead of gunicorn's HTML 400. These requests never
reach Django, so the body is written here; every other parse error keeps gunicorn's handling.

gunicorn.conf.py names one of these as `worker_class`: SyncJsonWorker, or ThreadJsonWorker when threads > 1. (Not
named `...SyncWorker`: gunicorn swaps any such class for its own ThreadWorker when threads > 1.)"""

from __future__ import annotations

import json

from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker as GunicornThreadWorker
from gunicorn.workers.sync import SyncWorker as GunicornSyncWorker

from vault.error_codes import ErrorCode

# status, reason phrase, code, message
_REFUSALS = {
    LimitRequestLine: (414, "URI Too Long", ErrorCode.URI_TOO_LONG, "Request line too long (method, path and query)."),
    LimitRequestHeaders: (
        431,
        "Request Header Fields Too Large",
        ErrorCode.HEADER_TOO_LARGE,
        "Request headers too large.",
    ),
}


def refusal_response(exc: Exception) -> bytes | None:
    """The whole HTTP response for a limit gunicorn enforced, or None for any other error."""
    for kind, (status, reason, code, message) in _REFUSALS.items():
        if isinstance(exc, kind):
            body = json.dumps(
                {"status": "error", "data": None, "message": message,
                 "errors": [{"field": None, "code": str(code), "message": message}]}
            ).encode()  # fmt: skip
            head = (
                f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            )
            return head.encode("latin-1") + body
    return None


class JsonRefusalsMixin:
    def handle_error(self, req, client, addr, exc):
        response = refusal_response(exc)
        if response is None:
            return super().handle_error(req, client, addr, exc)
        # gunicorn's own line for it: sizes only, never the line or header itself.
        self.log.warning("Invalid request from ip=%s: %s", (addr or ("",))[0], exc)
        try:
            util.write_nonblock(client, response)
        except OSError:
            self.log.debug("Failed to send error message.")
        return None


class SyncJsonWorker(JsonRefusalsMixin, GunicornSyncWorker):
    pass


class ThreadJsonWorker(JsonRefusalsMixin, GunicornThreadWorker):
    pass
