"""One permission class for every route: resolves the acting company and checks the route's action."""

from __future__ import annotations

import uuid

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from accounts.actions import ROLLOUT_GATED_ACTIONS, ROUTE_ACTIONS, ROUTE_ALSO_NEEDS
from accounts.authentication import ApiKeyPrincipal
from accounts.selectors import live_api_key_actions, membership_for
from vault.envelope import ENTITY_PARAM
from vault.error_codes import ErrorCode
from vault.errors import ApiError, Forbidden


def _entity_uuid(request) -> uuid.UUID | None:
    raw = request.query_params.get(ENTITY_PARAM)
    if raw in (None, ""):
        return None
    try:
        return uuid.UUID(raw)
    except ValueError:
        raise ApiError(f"{ENTITY_PARAM} must be a UUID", field=ENTITY_PARAM, code=ErrorCode.INVALID) from None


def route_action(request) -> str | None:
    match = request.resolver_match
    return ROUTE_ACTIONS.get((match.url_name if match else None, request.method))


def _view_handles(view, method: str) -> bool:
    name = method.lower()
    return name in view.http_method_names and hasattr(view, name)


def _api_key_grant(principal: ApiKeyPrincipal, entity: uuid.UUID | None, action: str):
    """(company, whether the key may use the action): live group, the key's own set, the rollout gate."""
    company = principal.company
    if entity is not None and entity != company.uuid:
        raise Forbidden("The API key may not act for that entity.")
    live_actions = live_api_key_actions()
    if live_actions is None:
        raise Forbidden(
            "API keys are disabled: the live API-key action group is missing; an operator must restore it.",
            code=ErrorCode.API_KEYS_DISABLED,
        )
    allowed = action in live_actions and principal.api_key.scope_allows(action)
    if allowed and action in ROLLOUT_GATED_ACTIONS and company.staged_rollout:
        allowed = principal.api_key.rollout_allowed
    return company, allowed


def _member_grant(principal, entity: uuid.UUID | None, action: str):
    """(company, whether the user's role there has the action); the company is `entityUuid`, required."""
    if entity is None:
        raise ApiError(f"{ENTITY_PARAM} is required with a Bearer token", field=ENTITY_PARAM, code=ErrorCode.REQUIRED)
    membership = membership_for(user_id=principal.pk, company_uuid=entity)
    if membership is None:
        raise Forbidden("You may not act for that entity.")
    return membership.company, action in membership.role.actions


class RouteActionPermission(BasePermission):
    """Fails closed: a route missing from ROUTE_ACTIONS is refused to every caller.

    Sets `request.company` (the merchant acted for) and `request.action` for the view."""

    def has_permission(self, request, view) -> bool:
        if getattr(view, "public", False):
            return True
        principal = request.user
        if principal is None or not getattr(principal, "is_authenticated", False):
            raise exceptions.NotAuthenticated("Authentication credentials were not provided.")
        action = route_action(request)
        if action is None:
            if not _view_handles(view, request.method):
                # Not a permission question: the route simply has no such method.
                raise exceptions.MethodNotAllowed(request.method)
            raise Forbidden("This route is not open to API callers.")
        entity = _entity_uuid(request)
        grant = _api_key_grant if isinstance(principal, ApiKeyPrincipal) else _member_grant
        company, allowed = grant(principal, entity, action)
        match = request.resolver_match
        for also in ROUTE_ALSO_NEEDS.get((match.url_name if match else None, request.method), ()):
            allowed = allowed and grant(principal, entity, also)[1]
        if company.is_suspended:
            raise Forbidden("This company is suspended; contact support.", code=ErrorCode.COMPANY_SUSPENDED)
        if not allowed:
            raise Forbidden("Forbidden.")
        request.company = company
        request.action = action
        return True
