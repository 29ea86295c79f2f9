"""CONTRACT 3 for every (route, method) of ROUTE_ACTIONS: who gets 401, 400, 403, and who is let through."""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from accounts.actions import DEFAULT_ROLES, ROLLOUT_GATED_ACTIONS, ROUTE_ACTIONS
from accounts.models import Company, Role, User
from accounts.services import IssuedApiKey, api_key_revoke, basic_authorization
from tests import factories
from tests.accounts.conftest import bearer_client, call_route, live_actions_without, set_live_actions

pytestmark = pytest.mark.django_db

ROUTES = sorted(ROUTE_ACTIONS)
ROUTE_IDS = [f"{method} {name}" for name, method in ROUTES]
GATED_ROUTES = [route for route in ROUTES if ROUTE_ACTIONS[route] in ROLLOUT_GATED_ACTIONS]
UNGATED_ROUTES = [route for route in ROUTES if ROUTE_ACTIONS[route] not in ROLLOUT_GATED_ACTIONS]
ROLE_MATRIX = [(role, route) for role in sorted(DEFAULT_ROLES) for route in ROUTES]


def _denied(response) -> bool:
    return response.status_code in (401, 403)


def _assert_error(response, status: int) -> None:
    assert response.status_code == status, response.content
    body = response.json()
    assert body["status"] == "error" and body["data"] is None
    assert body["errors"] and body["message"]


@dataclass
class MatrixRows:
    company: Company
    other_company: Company
    issued_key: IssuedApiKey
    members: dict[str, User]  # a user of `company` in each default role


@pytest.fixture(scope="module")
def matrix_rows(django_db_setup, django_db_blocker):
    """The companies, the API key and a member in each default role, made once for the module's 752 tests inside an
    atomic block that every test's own block nests in (as TestCase.setUpTestData): what a test writes rolls back to
    these rows, and the rows roll back when the module ends."""
    with django_db_blocker.unblock(), transaction.atomic():
        company = factories.CompanyFactory()
        members = {}
        for role_name in DEFAULT_ROLES:
            members[role_name] = factories.UserFactory()
            factories.membership(members[role_name], company, role_name)
        yield MatrixRows(
            company=company,
            other_company=factories.CompanyFactory(name="Other Merchant"),
            issued_key=factories.issue_api_key(company),
            members=members,
        )
        transaction.set_rollback(True)


@pytest.fixture
def company(matrix_rows, db):
    return copy.deepcopy(matrix_rows.company)  # a test's changes to the instance stay with the test


@pytest.fixture
def other_company(matrix_rows, db):
    return copy.deepcopy(matrix_rows.other_company)


@pytest.fixture
def issued_key(matrix_rows, db):
    return copy.deepcopy(matrix_rows.issued_key)


@pytest.fixture
def member(matrix_rows):
    """member(role_name): the module's user of `company` in that default role."""
    return lambda role_name="admin": matrix_rows.members[role_name]


def _member(company, role_name: str = "admin"):
    user = factories.UserFactory()
    factories.membership(user, company, role_name)
    return user


# --- API keys ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_no_credentials_is_401(anonymous_client, url_name, method):
    _assert_error(call_route(anonymous_client, url_name, method), 401)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_unknown_api_key_is_401(db, url_name, method):
    client = APIClient()
    unknown = factories.issue_api_key(factories.CompanyFactory())
    unknown.api_key.delete()
    client.credentials(HTTP_AUTHORIZATION=unknown.authorization)
    _assert_error(call_route(client, url_name, method), 401)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_wrong_secret_for_a_real_prefix_is_401(issued_key, url_name, method):
    client = APIClient()
    forged = factories.issue_api_key(issued_key.api_key.company)
    forged_raw = f"vk_{issued_key.api_key.prefix}_{forged.raw_key.split('_', 2)[2]}"
    client.credentials(HTTP_AUTHORIZATION=basic_authorization(forged_raw))
    _assert_error(call_route(client, url_name, method), 401)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_revoked_api_key_is_401(api_client, issued_key, url_name, method):
    api_key_revoke(api_key=issued_key.api_key)
    _assert_error(call_route(api_client, url_name, method), 401)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_api_key_without_the_action_in_live_group_is_403(api_client, url_name, method):
    set_live_actions(live_actions_without(ROUTE_ACTIONS[(url_name, method)]))
    _assert_error(call_route(api_client, url_name, method), 403)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_api_key_with_the_action_is_let_through(api_client, url_name, method):
    response = call_route(api_client, url_name, method)
    assert not _denied(response), response.content


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_api_key_with_its_own_entity_uuid_is_let_through(api_client, company, url_name, method):
    response = call_route(api_client, url_name, method, entityUuid=str(company.uuid))
    assert not _denied(response), response.content


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_api_key_with_another_companys_entity_uuid_is_403(api_client, other_company, url_name, method):
    _assert_error(call_route(api_client, url_name, method, entityUuid=str(other_company.uuid)), 403)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_api_key_with_malformed_entity_uuid_is_400(api_client, url_name, method):
    response = call_route(api_client, url_name, method, entityUuid="not-a-uuid")
    _assert_error(response, 400)
    assert response.json()["errors"][0]["field"] == "entityUuid"


@pytest.mark.parametrize(("url_name", "method"), GATED_ROUTES, ids=[f"{m} {n}" for n, m in GATED_ROUTES])
def test_staged_company_key_without_rollout_flag_is_403_for_gated_actions(db, url_name, method):
    company = factories.CompanyFactory(staged_rollout=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, rollout_allowed=False).authorization)
    _assert_error(call_route(client, url_name, method), 403)


@pytest.mark.parametrize(("url_name", "method"), GATED_ROUTES, ids=[f"{m} {n}" for n, m in GATED_ROUTES])
def test_staged_company_key_with_rollout_flag_is_let_through_for_gated_actions(db, url_name, method):
    company = factories.CompanyFactory(staged_rollout=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, rollout_allowed=True).authorization)
    assert not _denied(call_route(client, url_name, method))


@pytest.mark.parametrize(("url_name", "method"), GATED_ROUTES, ids=[f"{m} {n}" for n, m in GATED_ROUTES])
def test_rollout_flag_does_not_override_the_live_group(db, url_name, method):
    company = factories.CompanyFactory(staged_rollout=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, rollout_allowed=True).authorization)
    set_live_actions(live_actions_without(ROUTE_ACTIONS[(url_name, method)]))
    _assert_error(call_route(client, url_name, method), 403)


@pytest.mark.parametrize(("url_name", "method"), UNGATED_ROUTES, ids=[f"{m} {n}" for n, m in UNGATED_ROUTES])
def test_staged_company_key_without_rollout_flag_keeps_ungated_actions(db, url_name, method):
    company = factories.CompanyFactory(staged_rollout=True)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, rollout_allowed=False).authorization)
    assert not _denied(call_route(client, url_name, method))


# --- Bearer JWT -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_without_entity_uuid_is_400(member, url_name, method):
    response = call_route(bearer_client(member()), url_name, method)
    _assert_error(response, 400)
    assert response.json()["errors"][0]["field"] == "entityUuid"


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_with_malformed_entity_uuid_is_400(member, url_name, method):
    response = call_route(bearer_client(member()), url_name, method, entityUuid="12345")
    _assert_error(response, 400)
    assert response.json()["errors"][0]["field"] == "entityUuid"


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_for_a_company_the_user_is_not_member_of_is_403(member, other_company, url_name, method):
    client = bearer_client(member())
    _assert_error(call_route(client, url_name, method, entityUuid=str(other_company.uuid)), 403)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_for_an_unknown_entity_is_403(member, url_name, method):
    client = bearer_client(member())
    _assert_error(call_route(client, url_name, method, entityUuid=str(uuid.uuid4())), 403)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_whose_role_lacks_the_action_is_403(company, url_name, method):
    action = ROUTE_ACTIONS[(url_name, method)]
    Role.objects.create(name="all-but-one", actions=live_actions_without(action))
    client = bearer_client(_member(company, "all-but-one"))
    _assert_error(call_route(client, url_name, method, entityUuid=str(company.uuid)), 403)


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_with_admin_role_is_let_through(company, member, url_name, method):
    client = bearer_client(member("admin"))
    response = call_route(client, url_name, method, entityUuid=str(company.uuid))
    assert not _denied(response), response.content


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=ROUTE_IDS)
def test_bearer_ignores_the_live_api_key_group(company, member, url_name, method):
    set_live_actions([])
    client = bearer_client(member("admin"))
    response = call_route(client, url_name, method, entityUuid=str(company.uuid))
    assert not _denied(response), response.content


@pytest.mark.parametrize(
    ("role_name", "route"), ROLE_MATRIX, ids=[f"{role}-{method} {name}" for role, (name, method) in ROLE_MATRIX]
)
def test_default_roles_grant_exactly_their_actions(company, member, role_name, route):
    url_name, method = route
    client = bearer_client(member(role_name))
    response = call_route(client, url_name, method, entityUuid=str(company.uuid))
    if ROUTE_ACTIONS[route] in DEFAULT_ROLES[role_name]:
        assert not _denied(response), response.content
    else:
        _assert_error(response, 403)
