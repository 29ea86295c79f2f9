"""OpenAPI generation for the permission model: every guarded operation documents `entityUuid`, and is named
after its URL name (the key of ROUTE_ACTIONS) so operation ids are stable and never collide."""

from __future__ import annotations

import re
from functools import lru_cache

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from accounts.permissions import ENTITY_PARAM

_PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")


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
