"""The envelope of CONTRACT 4 as OpenAPI: success bodies wrapped in `{"status", "data"}`, list bodies with `meta`,
and one error-envelope component for every 4xx and 5xx. The schema class (accounts.schema) applies them to every
operation; views only name what is particular to them (`Paginated(...)`, `error(409, ...)`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ERROR_ENVELOPE = "ErrorEnvelope"
LIST_META = "ListMeta"

COMPONENTS: dict[str, dict[str, Any]] = {
    ERROR_ENVELOPE: {
        "type": "object",
        "description": "Every failure: one line in `message`, and each problem with its field and machine code.",
        "required": ["status", "data", "message", "errors"],
        "properties": {
            "status": {"type": "string", "enum": ["error"]},
            "data": {
                "nullable": True,
                "description": "null, except where an operation says otherwise (a duplicate method's 409 names "
                'the existing one: `{"paymentMethodUuid"}`).',
            },
            "message": {"type": "string", "description": "One line a person can read."},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["field", "code", "message"],
                    "properties": {
                        "field": {"type": "string", "nullable": True, "description": "The request field, if any."},
                        "code": {"type": "string", "description": "Machine code."},
                        "message": {"type": "string"},
                    },
                },
            },
        },
    },
    LIST_META: {
        "type": "object",
        "required": ["pagination", "timestamp", "version"],
        "properties": {
            "pagination": {
                "type": "object",
                "required": ["page", "pageSize", "totalFilteredRows", "totalRows"],
                "properties": {
                    "page": {"type": "integer", "minimum": 0, "nullable": True, "description": "null with a cursor."},
                    "pageSize": {"type": "integer", "minimum": 1},
                    "totalFilteredRows": {"type": "integer", "minimum": 0},
                    "totalRows": {"type": "integer", "minimum": 0},
                    "totalFilteredRowsIsLowerBound": {"type": "boolean", "description": "Reporting only."},
                    "nextCursor": {
                        "type": "string",
                        "nullable": True,
                        "description": "Where a cursor applies (reporting, events): the next page's cursor, sent back "
                        "as `cursor`; null on the last page.",
                    },
                },
            },
            "timestamp": {"type": "string", "format": "date-time"},
            "version": {"type": "string"},
        },
    },
}

# The failures every operation of a kind can answer, and what each means there.
ERROR_DESCRIPTIONS: dict[int, str] = {
    400: "Invalid request: malformed JSON, a wrong type, an unknown field or parameter, a bad value, or entityUuid "
    "missing with a Bearer token; `errors` names the field.",
    401: "Missing, unknown, revoked or expired credentials.",
    403: "The caller may not use this action, or may not act for that entityUuid; `company_suspended` when the "
    "company is suspended (every route).",
    404: "Not found; another company's object answers exactly the same.",
    409: "Conflict with the current state.",
    413: "The request body is too large.",
    415: "The body must be JSON (Content-Type: application/json).",
    429: "Too many requests (API_THROTTLE_RATE_PER_CREDENTIAL, API_THROTTLE_RATE_PER_COMPANY, README: Limits); retry "
    "after the Retry-After header's seconds (also `data.retryAfter`).",
    503: "The database is unavailable for a moment; nothing was written, retry (Retry-After).",
}
GUARDED_ERRORS = (400, 401, 403, 429, 503)
PUBLIC_ERRORS = (400, 401, 503)
PATH_OBJECT_ERRORS = (404,)
BODY_ERRORS = (413, 415)  # 413: vault middleware, MAX_REQUEST_BODY_BYTES
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


@dataclass(frozen=True, eq=False)  # hashed by identity: drf-spectacular looks response objects up in dicts
class Paginated:
    """A list body: `data` is an array of `items` (a serializer, or a schema dict registered as the component
    `name`), beside `errors` and `meta`."""

    items: Any
    name: str | None = None


@dataclass(frozen=True)
class ErrorResponse:
    description: str


def error(description: str) -> ErrorResponse:
    """An error status particular to an operation, declared in its `extend_schema(responses=...)`."""
    return ErrorResponse(description)


def component_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def success_envelope(data_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["status", "data"],
        "properties": {"status": {"type": "string", "enum": ["success"]}, "data": data_schema},
    }


def paginated_envelope(items_schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["status", "data", "errors", "meta"],
        "properties": {
            "status": {"type": "string", "enum": ["success"]},
            "data": {"type": "array", "items": items_schema},
            "errors": {"type": "object", "nullable": True, "description": "Always null on success."},
            "meta": component_ref(LIST_META),
        },
    }
