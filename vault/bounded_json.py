"""JSON from clients, bounded (M5, L1): request bodies no larger than MAX_REQUEST_BODY_BYTES (413), and JSON, in a
body or a filter value, nested no deeper than MAX_JSON_DEPTH and holding finite numbers only (400). A 100,000-deep
array is a 400 too: Python's decoder raises RecursionError for it, which is not a ValueError."""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from vault.error_codes import ErrorCode
from vault.errors import ApiError

MAX_JSON_DEPTH = 32


class JsonRefused(ValueError):
    """Parsed, or could have been, but not accepted: too deep, or a number that is not finite."""


def _refuse_constant(name: str) -> None:
    raise JsonRefused(f"{name} is not a JSON number")


def _check(value: Any) -> None:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children = [*node.keys(), *node.values()]
        elif isinstance(node, list):
            children = node
        else:
            if isinstance(node, float) and not math.isfinite(node):
                raise JsonRefused("numbers must be finite")
            if isinstance(node, str) and "\x00" in node:
                # PostgreSQL's jsonb and text refuse NUL (N11: a filter value holding \u0000 was a 500).
                raise JsonRefused("strings must not contain NUL (\\u0000)")
            continue
        if depth > MAX_JSON_DEPTH:
            raise JsonRefused(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
        stack.extend((child, depth + 1) for child in children)


def json_loads_bounded(text: str | bytes) -> Any:
    """json.loads that raises ValueError (JsonRefused for a refusal) for anything it does not accept."""
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:
        raise JsonRefused(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from None
    _check(value)
    return value


class RequestTooLarge(ApiError):
    status_code = 413
    code = ErrorCode.REQUEST_TOO_LARGE


def body_limit(path: str) -> int:
    """The largest body a request to `path` may send: MAX_REQUEST_BODY_BYTES, or more on the few routes that
    take a file (settings.LARGER_BODY_ROUTES: (path pattern, bytes))."""
    for pattern, limit in settings.LARGER_BODY_ROUTES:
        if re.fullmatch(pattern, path):
            return limit
    return settings.MAX_REQUEST_BODY_BYTES


def request_too_large(limit: int | None = None) -> RequestTooLarge:
    return RequestTooLarge(f"Request body larger than {limit or settings.MAX_REQUEST_BODY_BYTES} bytes.")


class BoundedJSONParser(JSONParser):
    """DRF's JSONParser reads the whole stream whatever DATA_UPLOAD_MAX_MEMORY_SIZE says: this one reads at most
    the limit (the middleware has already refused a larger Content-Length) and bounds the depth."""

    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        limit = body_limit(request.path) if request is not None else settings.MAX_REQUEST_BODY_BYTES
        raw = stream.read(limit + 1)
        if len(raw) > limit:
            raise request_too_large(limit)
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            text = codecs.decode(raw, encoding)
        except (UnicodeDecodeError, LookupError) as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        try:
            return json_loads_bounded(text)
        except JsonRefused as exc:
            raise ParseError(str(exc)) from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
