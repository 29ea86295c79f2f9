"""One error contract (CONTRACT 4): domain code raises ApiError; one handler renders every error."""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions as drf_exceptions
from rest_framework.response import Response

from vault.envelope import error_body
from vault.error_codes import ErrorCode

logger = logging.getLogger("vault.errors")


class ApiError(Exception):
    """A client-facing failure: HTTP status, machine code, one-line message, optional field and data."""

    status_code = 400
    code: ErrorCode = ErrorCode.INVALID

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        field: str | None = None,
        errors: list[dict[str, Any]] | None = None,
        data: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status or self.status_code
        self.code = str(code or self.code)
        self.errors = errors or [{"field": field, "code": self.code, "message": message}]
        self.data = data
        self.headers = headers or {}


class NotFound(ApiError):
    status_code = 404
    code = ErrorCode.NOT_FOUND


class Conflict(ApiError):
    status_code = 409
    code = ErrorCode.CONFLICT


class Forbidden(ApiError):
    status_code = 403
    code = ErrorCode.FORBIDDEN


class Unauthenticated(ApiError):
    status_code = 401
    code = ErrorCode.AUTHENTICATION_FAILED


class Throttled(ApiError):
    """429 with Retry-After, as a header and as `data.retryAfter` (seconds)."""

    status_code = 429
    code = ErrorCode.THROTTLED

    def __init__(self, message: str, *, retry_after: int, code: ErrorCode | None = None) -> None:
        super().__init__(
            message, data={"retryAfter": retry_after}, headers={"Retry-After": str(retry_after)}, code=code
        )


class InvalidFilter(ApiError):
    """400 `invalid filter` (the message CONTRACT 7 gives); `errors[0]` names the parameter, and suggests the known
    filter it looks like."""

    code = ErrorCode.INVALID_FILTER

    def __init__(self, message: str, *, field: str, known: Iterable[str] = ()) -> None:
        detail = f"unknown filter {field}{did_you_mean(field.partition(':')[0], known)}"
        super().__init__(message, errors=[{"field": field, "code": str(self.code), "message": detail}])


def did_you_mean(name: str, known: Iterable[str], meant: dict[str, str] | None = None) -> str:
    """`; did you mean X?` when `meant` maps `name` (lowercase) to X, or one known name is close to it
    (case-insensitive), else ``."""
    if meant and name.lower() in meant:
        return f"; did you mean {meant[name.lower()]}?"
    by_lower = {choice.lower(): choice for choice in known}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.75)
    return f"; did you mean {by_lower[close[0]]}?" if close else ""


def _flatten_validation(detail: Any, prefix: str | None = None) -> list[dict[str, Any]]:
    """DRF's nested ValidationError detail -> [{field, code, message}], with dotted field paths."""
    if isinstance(detail, dict):
        out: list[dict[str, Any]] = []
        for key, value in detail.items():
            name = None if key == "non_field_errors" else (f"{prefix}.{key}" if prefix else str(key))
            if key == "non_field_errors":
                name = prefix
            out.extend(_flatten_validation(value, name))
        return out
    if isinstance(detail, list):
        out = []
        for index, item in enumerate(detail):
            if isinstance(item, (dict, list)):
                out.extend(_flatten_validation(item, f"{prefix}.{index}" if prefix else str(index)))
            else:
                out.extend(_flatten_validation(item, prefix))
        return out
    code = getattr(detail, "code", None) or ErrorCode.INVALID
    return [{"field": prefix, "code": code, "message": _field_message(prefix, str(detail))}]


def _field_message(field: str | None, message: str) -> str:
    """DRF's stock "This field is required." reads as our own messages do: "amount is required" (F19)."""
    if field and message.startswith(_DRF_SUBJECT):
        return f"{field} {message[len(_DRF_SUBJECT) :]}".rstrip(".")
    return message


_DRF_SUBJECT = "This field "


_DRF_CODES = {
    drf_exceptions.NotAuthenticated: ErrorCode.NOT_AUTHENTICATED,
    drf_exceptions.AuthenticationFailed: ErrorCode.AUTHENTICATION_FAILED,
    drf_exceptions.PermissionDenied: ErrorCode.FORBIDDEN,
    drf_exceptions.NotFound: ErrorCode.NOT_FOUND,
    drf_exceptions.MethodNotAllowed: ErrorCode.METHOD_NOT_ALLOWED,
    drf_exceptions.NotAcceptable: ErrorCode.NOT_ACCEPTABLE,
    drf_exceptions.UnsupportedMediaType: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    drf_exceptions.Throttled: ErrorCode.THROTTLED,
    drf_exceptions.ParseError: ErrorCode.PARSE_ERROR,
}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    headers: dict[str, str] = {}
    if isinstance(exc, ApiError):
        return Response(error_body(exc.message, exc.errors, exc.data), status=exc.status, headers=exc.headers)
    if isinstance(exc, RequestDataTooBig):
        # request.body past DATA_UPLOAD_MAX_MEMORY_SIZE; the body-limit middleware normally answers first.
        message = "Request body too large."
        return Response(
            error_body(message, [{"field": None, "code": ErrorCode.REQUEST_TOO_LARGE, "message": message}]), 413
        )
    if isinstance(exc, Http404):
        exc = drf_exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf_exceptions.PermissionDenied()

    if isinstance(exc, drf_exceptions.ValidationError):
        errors = _flatten_validation(exc.detail)
        first = errors[0] if errors else {"field": None, "message": "Invalid request."}
        named = first["field"] and not first["message"].startswith(f"{first['field']} ")
        message = f"{first['field']}: {first['message']}" if named else first["message"]
        return Response(error_body(message, errors), status=400)
    if isinstance(exc, drf_exceptions.APIException):
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header
        if getattr(exc, "wait", None):
            headers["Retry-After"] = str(int(exc.wait))
        code = _DRF_CODES.get(type(exc)) or (exc.get_codes() if isinstance(exc.get_codes(), str) else ErrorCode.ERROR)
        message = str(exc.detail) if not isinstance(exc.detail, (list, dict)) else "Request failed."
        return Response(
            error_body(message, [{"field": None, "code": code, "message": message}]),
            status=exc.status_code,
            headers=headers,
        )
    if isinstance(exc, DataError):
        # A value the database refused that validation let through: our bug, so a 500 (client input is checked
        # before it gets here, e.g. NUL in JSON filters). Logged without the database's message, which quotes the
        # query's literals (N11).
        view = context.get("view").__class__.__name__ if context.get("view") else "?"
        logger.error("database refused a value in %s: %s", view, type(exc).__name__)
        message = "Internal server error."
        return Response(
            error_body(message, [{"field": None, "code": ErrorCode.SERVER_ERROR, "message": message}]), status=500
        )
    if isinstance(exc, (OperationalError, InterfaceError)):
        # A lost or restarted database connection: nothing was committed, and a retry gets a fresh connection
        # (Django drops the broken one when the request ends), so this is 503, not a 500.
        logger.warning("database unavailable: %s", type(exc).__name__)
        message = "Service temporarily unavailable; retry the request."
        return Response(
            error_body(message, [{"field": None, "code": ErrorCode.SERVICE_UNAVAILABLE, "message": message}]),
            status=503,
            headers={"Retry-After": "1"},
        )
    logger.exception("unhandled error in %s", context.get("view").__class__.__name__ if context.get("view") else "?")
    message = "Internal server error."
    return Response(
        error_body(message, [{"field": None, "code": ErrorCode.SERVER_ERROR, "message": message}]), status=500
    )
