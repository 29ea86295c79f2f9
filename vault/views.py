"""Django-level 404/500 handlers that answer in the error envelope, never with a page or a trace."""

from __future__ import annotations

import json

from django.http import HttpResponse

from vault.envelope import error_body
from vault.error_codes import ErrorCode


def error_response(status: int, code: str, message: str) -> HttpResponse:
    body = error_body(message, [{"field": None, "code": code, "message": message}])
    return HttpResponse(json.dumps(body), status=status, content_type="application/json")


def not_found(request, exception=None):
    return error_response(404, ErrorCode.NOT_FOUND, "Not found.")


def server_error(request):
    return error_response(500, ErrorCode.SERVER_ERROR, "Internal server error.")


def bad_request(request, exception=None):
    return error_response(400, ErrorCode.BAD_REQUEST, "Bad request.")


def permission_denied(request, exception=None):
    return error_response(403, ErrorCode.FORBIDDEN, "You do not have permission to perform this action.")
