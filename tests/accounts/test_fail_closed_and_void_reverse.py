"""CONTRACT 3: no live API-key action group row means API keys are refused; void and reverse have their own
actions (VoidTransaction, ReverseTransaction), held by the admin role and the default live group only."""

from __future__ import annotations

import pytest

from accounts.actions import DEFAULT_ROLES, LIVE_API_KEY_GROUP, ROUTE_ACTIONS, Action
from accounts.models import ActionGroup, Role
from accounts.selectors import clear_action_group_cache
from tests import factories
from tests.accounts.conftest import bearer_client, call_route, live_actions_without, set_live_actions

pytestmark = pytest.mark.django_db

ROUTES = sorted(ROUTE_ACTIONS)
VOID_REVERSE = {Action.VOID_TRANSACTION, Action.REVERSE_TRANSACTION}


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=[f"{m} {n}" for n, m in ROUTES])
def test_without_the_live_group_row_every_api_key_call_is_403_with_a_clear_message(api_client, url_name, method):
    ActionGroup.objects.filter(name=LIVE_API_KEY_GROUP).delete()
    clear_action_group_cache()
    response = call_route(api_client, url_name, method)
    assert response.status_code == 403, response.content
    body = response.json()
    assert body["status"] == "error" and body["errors"][0]["code"] == "api_keys_disabled"
    assert "live API-key action group is missing" in body["message"]


def test_without_the_live_group_row_bearer_members_still_act(company):
    ActionGroup.objects.filter(name=LIVE_API_KEY_GROUP).delete()
    clear_action_group_cache()
    user = factories.UserFactory()
    factories.membership(user, company, "admin")
    response = bearer_client(user).get("/customers", {"entityUuid": str(company.uuid), "page": 0, "pageSize": 5})
    assert response.status_code == 200, response.content


def test_void_and_reverse_routes_need_their_own_actions():
    assert ROUTE_ACTIONS[("transaction-void", "POST")] == Action.VOID_TRANSACTION
    assert ROUTE_ACTIONS[("transaction-reverse", "POST")] == Action.REVERSE_TRANSACTION


def test_the_migrated_admin_role_has_void_and_reverse_and_support_and_reporting_do_not():
    roles = {role.name: set(role.actions) for role in Role.objects.filter(name__in=DEFAULT_ROLES)}
    assert roles["admin"] >= VOID_REVERSE
    assert not roles["support"] & VOID_REVERSE
    assert not roles["reporting"] & VOID_REVERSE
    for name, actions in DEFAULT_ROLES.items():
        assert (set(actions) >= VOID_REVERSE) == (name == "admin")


def test_the_migrated_live_group_includes_void_and_reverse():
    assert set(ActionGroup.objects.get(name=LIVE_API_KEY_GROUP).actions) >= VOID_REVERSE


@pytest.mark.parametrize(("action", "url"), [("VoidTransaction", "void"), ("ReverseTransaction", "reverse")])
def test_a_key_that_may_charge_but_not_void_or_reverse_is_403_there(api_client, company, action, url):
    set_live_actions(live_actions_without(action))
    txn = factories.TransactionFactory(company=company, status="Settled" if url == "reverse" else "Pending")
    response = api_client.post(f"/transactions/{txn.uuid}/{url}")
    assert response.status_code == 403, response.content
    txn.refresh_from_db()
    assert txn.status in ("Settled", "Pending")


@pytest.mark.parametrize("role_name", ["support", "reporting"])
@pytest.mark.parametrize("url", ["void", "reverse"])
def test_support_and_reporting_members_cannot_void_or_reverse(company, role_name, url):
    user = factories.UserFactory()
    factories.membership(user, company, role_name)
    txn = factories.TransactionFactory(company=company, status="Settled" if url == "reverse" else "Pending")
    response = bearer_client(user).post(f"/transactions/{txn.uuid}/{url}?entityUuid={company.uuid}")
    assert response.status_code == 403, response.content
