"""Scoped API keys (CONTRACT 3): a key made with its own actions may use only those that the live API-key
action group grants too; without its own set, all of the group. Shown and editable on the key's admin page."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.actions import Action
from accounts.models import ApiKey, User
from tests import factories
from tests.accounts.conftest import live_actions_without, set_live_actions

pytestmark = pytest.mark.django_db


def _key_client(company, *actions: str) -> tuple[APIClient, ApiKey]:
    out = StringIO()
    args = ["--company", str(company.uuid)] + (["--actions", ",".join(actions)] if actions else [])
    call_command("create_api_key", *args, stdout=out)
    issued = json.loads(out.getvalue())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued["authorization"])
    return client, ApiKey.objects.get(prefix=issued["prefix"])


def _answers(client: APIClient, customer) -> dict[str, int]:
    """One request per action this test exercises -> its status."""
    return {
        Action.VIEW_REPORTS: client.get("/reporting/transactions?page=0&pageSize=1").status_code,
        Action.GET_CUSTOMER: client.get(f"/customers/{customer.uuid}").status_code,
        Action.LIST_CUSTOMERS: client.get("/customers").status_code,
        Action.CREATE_CUSTOMER: client.post(
            "/customers", {"firstName": "Ada", "lastName": "Lovelace"}, format="json"
        ).status_code,
    }


def test_key_made_with_actions_can_do_only_those(company):
    customer = factories.CustomerFactory(company=company)
    client, api_key = _key_client(company, Action.VIEW_REPORTS, Action.GET_CUSTOMER)
    assert api_key.actions == [Action.GET_CUSTOMER, Action.VIEW_REPORTS]
    assert _answers(client, customer) == {
        Action.VIEW_REPORTS: 200,
        Action.GET_CUSTOMER: 200,
        Action.LIST_CUSTOMERS: 403,
        Action.CREATE_CUSTOMER: 403,
    }


def test_key_without_actions_can_do_all_of_the_live_group(company):
    customer = factories.CustomerFactory(company=company)
    set_live_actions(live_actions_without(Action.LIST_CUSTOMERS))
    client, api_key = _key_client(company)
    assert api_key.actions is None
    assert _answers(client, customer) == {
        Action.VIEW_REPORTS: 200,
        Action.GET_CUSTOMER: 200,
        Action.LIST_CUSTOMERS: 403,
        Action.CREATE_CUSTOMER: 201,
    }


def test_key_scope_is_intersected_with_the_live_group_never_widening_it(company):
    customer = factories.CustomerFactory(company=company)
    client, _ = _key_client(company, Action.VIEW_REPORTS, Action.GET_CUSTOMER)
    set_live_actions(live_actions_without(Action.VIEW_REPORTS))
    answers = _answers(client, customer)
    assert (answers[Action.VIEW_REPORTS], answers[Action.GET_CUSTOMER]) == (403, 200)


def test_key_scope_is_shown_and_edited_on_its_admin_page(client, company):
    customer = factories.CustomerFactory(company=company)
    key_client, api_key = _key_client(company, Action.VIEW_REPORTS)
    client.force_login(User.objects.create_superuser(email="staff@example.com", password="staff password 1"))
    url = reverse("admin:accounts_apikey_change", args=[api_key.pk])

    page = client.get(url).content.decode()
    ticked = set(re.findall(r'<input type="checkbox" name="actions" value="(\w+)"[^>]*checked', page))
    assert ticked == {Action.VIEW_REPORTS}
    assert "ViewReports" in client.get(reverse("admin:accounts_apikey_changelist")).content.decode()

    response = client.post(url, {"name": "", "actions": [Action.LIST_CUSTOMERS, Action.GET_CUSTOMER]})
    assert response.status_code == 302, response.content.decode()[:2000]
    api_key.refresh_from_db()
    assert api_key.actions == [Action.GET_CUSTOMER, Action.LIST_CUSTOMERS]
    answers = _answers(key_client, customer)
    assert (answers[Action.VIEW_REPORTS], answers[Action.LIST_CUSTOMERS], answers[Action.GET_CUSTOMER]) == (
        403,
        200,
        200,
    )

    client.post(url, {"name": "", "follows_live_group": "on"})  # no set of its own: the whole live group again
    api_key.refresh_from_db()
    assert api_key.actions is None
    assert _answers(key_client, customer)[Action.VIEW_REPORTS] == 200
