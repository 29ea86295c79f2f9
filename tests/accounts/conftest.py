"""Fixtures for the platform tests: Bearer clients, route URLs built from the URL table, the live action group."""

from __future__ import annotations

import re
import time
import uuid

import pytest
import time_machine
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.test import APIClient

from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP
from accounts.models import ActionGroup, User
from accounts.selectors import clear_action_group_cache
from accounts.services import refresh_token_issue

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


@pytest.fixture
def early_in_a_minute():
    """The rate windows are fixed minutes: a test whose requests straddled a minute's end would see its counts
    start again (red in CI now and then). The test starts one second into the next minute, the clock ticking on."""
    now = time.time()
    with time_machine.travel(now - now % 60 + 61, tick=True):
        yield


def walk_urlpatterns(patterns=None, prefix: str = ""):
    """(route string, URLPattern) for every pattern of the project, includes flattened."""
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from walk_urlpatterns(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry


def route_templates() -> dict[str, str]:
    """URL name -> OpenAPI path template: `customers/<uuid:customer_uuid>` -> `/customers/{customer_uuid}`."""
    return {
        entry.name: "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)
        for route, entry in walk_urlpatterns()
        if entry.name
    }


def route_url(url_name: str, **query: str) -> str:
    """reverse() of a project route with a random UUID for every path parameter (fails if the route is missing)."""
    kwargs: dict[str, str] = {}
    for possibility in get_resolver().reverse_dict.getlist(url_name):
        for _format, params in possibility[0]:
            kwargs = {param: str(uuid.uuid4()) for param in params}
    url = reverse(url_name, kwargs=kwargs or None)
    if query:
        url += "?" + "&".join(f"{key}={value}" for key, value in query.items())
    return url


def call_route(client: APIClient, url_name: str, method: str, **query: str):
    url = route_url(url_name, **query)
    if method in WRITE_METHODS:
        return client.generic(method, url, "{}", content_type="application/json")
    return client.generic(method, url)


def bearer_client(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {refresh_token_issue(user=user).access_token}")
    return client


def set_live_actions(actions) -> None:
    """Edit the live API-key action group as staff would in the admin (the row may be gone after a flush)."""
    ActionGroup.objects.update_or_create(name=LIVE_API_KEY_GROUP, defaults={"actions": list(actions)})
    clear_action_group_cache()


def live_actions_without(action: str) -> list[str]:
    return [name for name in ALL_ACTIONS if name != action]


@pytest.fixture
def probe_urls(settings):
    """Route the project through tests/accounts/probe_urls.py (auth routes plus probe views)."""
    settings.ROOT_URLCONF = "tests.accounts.probe_urls"
