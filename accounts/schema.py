"""OpenAPI generation: every guarded operation documents `entityUuid` and is named after its URL name (the key of
ROUTE_ACTIONS), so operation ids are stable and never collide; every body is documented inside the envelope of
CONTRACT 4, and every operation lists the failures it can answer, each as the one error-envelope component."""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, force_instance
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from accounts.permissions import ENTITY_PARAM
from vault.openapi import (
    BODY_ERRORS,
    BODY_METHODS,
    COMPONENTS,
    ERROR_DESCRIPTIONS,
    ERROR_ENVELOPE,
    GUARDED_ERRORS,
    LIST_META,
    PATH_OBJECT_ERRORS,
    PUBLIC_ERRORS,
    ErrorResponse,
    Paginated,
    component_ref,
    paginated_envelope,
    success_envelope,
)
from vault.serializers import StrictSerializer

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

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
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
        self._component(LIST_META, COMPONENTS[LIST_META])
        return {"description": "", "content": {JSON: {"schema": paginated_envelope(item_schema)}}}
