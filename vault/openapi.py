"""The envelope of CONTRACT 4 as OpenAPI: success bodies wrapped in `{"status", "data"}`, list bodies with `meta`,
and one error-envelope component for every 4xx and 5xx. The schema class (VaultAutoSchema, below) applies them to every
operation; views only name what is particular to them (`Paginated(...)`, `error(409, ...)`).

OpenAPI generation: every guarded operation documents `entityUuid` and is named after its URL name (the key of
ROUTE_ACTIONS), so operation ids are stable and never collide; every body is documented inside the envelope of
CONTRACT 4, and every operation lists the failures it can answer, each as the one error-envelope component."""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, force_instance
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from vault.envelope import ENTITY_PARAM
from vault.serializers import StrictSerializer

ERROR_ENVELOPE = "ErrorEnvelope"

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
    414: "The request line (method, path and query string) is longer than 8190 bytes (`uri_too_long`): send fewer "
    "or shorter query parameters.",
    431: "A header is longer than 8190 bytes, or the request has more than 100 headers (`header_too_large`).",
}
# What the web server answers before any view, on every route (gunicorn.conf.py's limits, in the envelope).
SERVER_LIMIT_ERRORS = (414, 431)
GUARDED_ERRORS = (400, 401, 403, 429, 503, *SERVER_LIMIT_ERRORS)
PUBLIC_ERRORS = (400, 401, 503, *SERVER_LIMIT_ERRORS)
PATH_OBJECT_ERRORS = (404,)
BODY_ERRORS = (413, 415)  # 413: vault middleware, MAX_REQUEST_BODY_BYTES
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


@dataclass(frozen=True)
class ListKind:
    """Which of the optional keys of the one list shape a list answers, so its documented example shows only those:
    `cursor` (meta.pagination.nextCursor), `lower_bound` (totalFilteredRowsIsLowerBound), `counted` (false: the
    totals are null), `meta_cursor` (meta.nextCursor beside meta.pagination, the events list's older key)."""

    name: str = "ListMeta"
    cursor: bool = False
    lower_bound: bool = False
    counted: bool = True
    meta_cursor: bool = False


PLAIN_LIST = ListKind()
_NEXT_CURSOR_HELP = "The next page's cursor, sent back as `cursor`; null on the last page."


def _total(what: str, counted: bool) -> dict[str, Any]:
    if counted:
        return {"type": "integer", "minimum": 0, "description": what}
    return {"type": "integer", "minimum": 0, "nullable": True, "description": f"{what} Null: this list does not count."}


def list_meta_schema(kind: ListKind) -> dict[str, Any]:
    """`meta` of a list: `pagination` (page, pageSize, totalFilteredRows, totalRows, and nextCursor where a cursor
    applies), `timestamp`, `version`."""
    pagination: dict[str, Any] = {
        "page": {
            "type": "integer",
            "minimum": 0,
            "nullable": True,
            "description": "From 0; null on a page fetched by cursor.",
        },
        "pageSize": {"type": "integer", "minimum": 1},
        "totalFilteredRows": _total("Rows matching the filters.", kind.counted),
        "totalRows": _total("Rows of the list without filters.", kind.counted),
    }
    if kind.lower_bound:
        pagination["totalFilteredRowsIsLowerBound"] = {
            "type": "boolean",
            "description": "true when totalFilteredRows stopped counting at 10,000 (`count=exact` counts on).",
        }
    if kind.cursor:
        pagination["nextCursor"] = {"type": "string", "nullable": True, "description": _NEXT_CURSOR_HELP}
    properties: dict[str, Any] = {
        "pagination": {
            "type": "object",
            "description": "The same on every list. A list that is never long (webhook endpoints, a customer's "
            "payment methods, a transaction's trail) answers every row as page 0.",
            "required": list(pagination),
            "properties": pagination,
        },
        "timestamp": {"type": "string", "format": "date-time"},
        "version": {"type": "string"},
    }
    if kind.meta_cursor:
        properties["nextCursor"] = {
            "type": "string",
            "nullable": True,
            "description": "The same as pagination.nextCursor (this list's key before pagination).",
        }
    return {"type": "object", "required": list(properties), "properties": properties}


@dataclass(frozen=True, eq=False)  # hashed by identity: drf-spectacular looks response objects up in dicts
class Paginated:
    """A list body: `data` is an array of `items` (a serializer, or a schema dict registered as the component
    `name`), or an object holding that array under `data_key`, beside `errors` and `meta`."""

    items: Any
    name: str | None = None
    data_key: str | None = None
    kind: ListKind = PLAIN_LIST


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


def paginated_envelope(
    items_schema: dict[str, Any], meta_ref: dict[str, str], data_key: str | None = None
) -> dict[str, Any]:
    data: dict[str, Any] = {"type": "array", "items": items_schema}
    if data_key:
        data = {"type": "object", "required": [data_key], "properties": {data_key: data}}
    return {
        "type": "object",
        "required": ["status", "data", "errors", "meta"],
        "properties": {
            "status": {"type": "string", "enum": ["success"]},
            "data": data,
            "errors": {"type": "object", "nullable": True, "description": "Always null on success."},
            "meta": meta_ref,
        },
    }


_PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")
JSON = "application/json"


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, route)
        elif isinstance(entry, URLPattern) and entry.name:
            yield route, entry.name


@lru_cache(maxsize=4)
def _url_names(urlconf: str) -> dict[str, str]:
    """OpenAPI path template (`/customers/{customer_uuid}`) -> URL name."""
    return {"/" + _PARAMETER.sub(r"{\1}", route): name for route, name in _walk(get_resolver(urlconf).url_patterns)}


class VaultAutoSchema(AutoSchema):
    def _is_guarded(self) -> bool:
        return not getattr(self.view, "public", False)

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        if not self._is_guarded():
            return parameters
        entity = OpenApiParameter(
            ENTITY_PARAM,
            OpenApiTypes.UUID,
            OpenApiParameter.QUERY,
            required=False,
            description="The merchant acted for: optional with an API key (must be the key's company), "
            "required with a Bearer token (the user must be a member).",
        )
        return [entity, *parameters]

    def get_operation_id(self) -> str:
        url_name = _url_names(settings.ROOT_URLCONF).get(self.path)
        if url_name is None:
            return super().get_operation_id()
        return f"{url_name.replace('-', '_')}_{self.method.lower()}"

    def get_description(self) -> str:
        # A view's docstring is written for the code's readers; what an operation says comes from its
        # extend_schema(description=) or vault.openapi_operations.OPERATIONS, never from a docstring.
        return ""

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        # The same for a serializer (and the mixins it inherits): a component says its `schema_description` or nothing.
        schema.pop("description", None)
        if public := getattr(serializer, "schema_description", ""):
            schema["description"] = public
        if isinstance(serializer, StrictSerializer) and direction == "request":
            schema["additionalProperties"] = False  # unknown fields are a 400 (vault.serializers)
        return schema

    # The envelope (CONTRACT 4).

    def _component(self, name: str, schema: dict[str, Any]) -> dict[str, str]:
        # A copy: drf-spectacular's post-processing rewrites component schemas in place (enums become $refs), and
        # the module-level original must read the same at the next generation.
        component = ResolvedComponent(name, ResolvedComponent.SCHEMA, schema=copy.deepcopy(schema), object=name)
        self.registry.register_on_missing(component)
        return component_ref(name)

    def _error_statuses(self) -> tuple[int, ...]:
        """What any operation of this kind can answer: bad input, credentials, permission, a lost database; 404
        for an object named in the path; 413 and 415 for a body too large or not JSON."""
        statuses = GUARDED_ERRORS if self._is_guarded() else PUBLIC_ERRORS
        if "{" in self.path:
            statuses += PATH_OBJECT_ERRORS
        if self.method in BODY_METHODS:
            statuses += BODY_ERRORS
        return statuses

    def _error_response(self, description: str) -> dict[str, Any]:
        ref = self._component(ERROR_ENVELOPE, COMPONENTS[ERROR_ENVELOPE])
        return {"description": description, "content": {JSON: {"schema": ref}}}

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in self._error_statuses():
            responses.setdefault(str(status), self._error_response(ERROR_DESCRIPTIONS[status]))
        return dict(sorted(responses.items()))

    def _get_response_for_code(self, serializer, status_code, media_types=None, direction="response"):
        if isinstance(serializer, ErrorResponse):
            return self._error_response(serializer.description)
        if status_code >= "400":
            # Every failure is the error envelope, whatever a view declared for it (CONTRACT 4).
            declared = getattr(serializer, "description", "")
            return self._error_response(declared or ERROR_DESCRIPTIONS.get(int(status_code), "Failure."))
        if isinstance(serializer, Paginated):
            return self._paginated_response(serializer, direction)
        response = super()._get_response_for_code(serializer, status_code, media_types, direction)
        if status_code.startswith("2") and JSON in response.get("content", {}):
            media = response["content"][JSON]
            media["schema"] = success_envelope(media["schema"])
        return response

    def _paginated_response(self, paginated: Paginated, direction: str) -> dict[str, Any]:
        items = paginated.items
        if isinstance(items, dict):
            item_schema = self._component(paginated.name, items) if paginated.name else items
        else:
            item_schema = self.resolve_serializer(force_instance(items), direction).ref
        meta = self._component(paginated.kind.name, list_meta_schema(paginated.kind))
        body = paginated_envelope(item_schema, meta, paginated.data_key)
        return {"description": "", "content": {JSON: {"schema": body}}}
