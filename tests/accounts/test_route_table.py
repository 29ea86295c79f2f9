"""ROUTE_ACTIONS is the whole truth: every project route is in it, it names only real routes, and a route
left out of it is refused to every caller (fail closed)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.actions import ROUTE_ACTIONS
from tests import factories
from tests.accounts.conftest import bearer_client, walk_urlpatterns

# auth, the admin and the API documents (GET /, the index pointing at them, too); /health and /metrics are the
# operator's (their own access rules).
UNGUARDED_PREFIXES = ("auth/", "admin/", "api/", "health", "metrics")
UNGUARDED_ROUTES = {""}
NOT_ROUTED_BY_TABLE = {"HEAD", "OPTIONS"}  # not in the table, so refused like any unlisted method


def _handled_methods(callback) -> set[str]:
    actions = getattr(callback, "actions", None)  # DRF viewsets: {method: action}
    if actions:
        return {method.upper() for method in actions}
    view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    assert view_class is not None, f"{callback} is a function view; the route table needs class-based views"
    return {
        method.upper()
        for method in view_class.http_method_names
        if hasattr(view_class, method) and method.upper() not in NOT_ROUTED_BY_TABLE
    }


def _api_routes():
    return [
        (route, entry)
        for route, entry in walk_urlpatterns()
        if not route.startswith(UNGUARDED_PREFIXES) and route not in UNGUARDED_ROUTES
    ]


def test_every_api_route_and_method_has_an_action():
    routes = _api_routes()
    assert routes, "no API routes found"
    missing = []
    for route, entry in routes:
        if entry.name is None:
            missing.append(f"{route} has no URL name")
            continue
        for method in sorted(_handled_methods(entry.callback)):
            if (entry.name, method) not in ROUTE_ACTIONS:
                missing.append(f"{method} {route} ({entry.name})")
    assert not missing, "routes without an entry in ROUTE_ACTIONS: " + ", ".join(missing)


def test_every_route_action_entry_names_a_method_its_view_handles():
    handled = {}
    for _route, entry in _api_routes():
        handled.setdefault(entry.name, set()).update(_handled_methods(entry.callback))
    stale = [f"{method} {name}" for name, method in ROUTE_ACTIONS if method not in handled.get(name, set())]
    assert not stale, "ROUTE_ACTIONS entries without a view method: " + ", ".join(stale)


@pytest.mark.django_db
@pytest.mark.usefixtures("probe_urls")
def test_route_missing_from_the_table_is_403_for_a_valid_api_key(api_client):
    response = api_client.get("/probe/unlisted")
    assert response.status_code == 403
    assert response.json()["errors"][0]["code"] == "forbidden"


@pytest.mark.django_db
@pytest.mark.usefixtures("probe_urls")
def test_route_missing_from_the_table_is_403_for_an_admin_bearer(company):
    user = factories.UserFactory()
    factories.membership(user, company, "admin")
    response = bearer_client(user).get(f"/probe/unlisted?entityUuid={company.uuid}")
    assert response.status_code == 403


@pytest.mark.django_db
@pytest.mark.usefixtures("probe_urls")
def test_route_missing_from_the_table_is_401_without_credentials(anonymous_client):
    assert anonymous_client.get("/probe/unlisted").status_code == 401


@pytest.mark.django_db
@pytest.mark.usefixtures("probe_urls")
def test_method_missing_from_the_table_is_refused_on_a_listed_route(api_client):
    # OPTIONS on a listed route has no entry: refused, not answered.
    assert api_client.options("/probe/reports").status_code == 403


@pytest.mark.django_db
@pytest.mark.usefixtures("probe_urls")
def test_permission_class_hands_the_view_the_keys_company_and_action(api_client, company):
    response = api_client.get("/probe/reports")
    assert response.status_code == 200
    assert response.json()["data"] == {"companyUuid": str(company.uuid), "action": "ViewReports"}


@pytest.mark.django_db
@pytest.mark.usefixtures("probe_urls")
def test_permission_class_hands_the_view_the_bearers_entity(company, other_company):
    user = factories.UserFactory()
    factories.membership(user, company, "reporting")
    factories.membership(user, other_company, "reporting")
    response = bearer_client(user).get(f"/probe/reports?entityUuid={other_company.uuid}")
    assert response.status_code == 200
    assert response.json()["data"]["companyUuid"] == str(other_company.uuid)


@pytest.mark.django_db
def test_method_a_route_does_not_have_is_405_for_a_known_caller(api_client):
    response = api_client.delete(reverse("customer-list"))
    assert response.status_code == 405
    assert response.json()["errors"][0]["code"] == "method_not_allowed"


@pytest.mark.django_db
def test_method_a_route_does_not_have_is_still_401_without_credentials(anonymous_client):
    assert anonymous_client.delete(reverse("customer-list")).status_code == 401
