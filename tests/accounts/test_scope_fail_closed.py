"""N3 (security review 2026-11-25): key scopes fail closed (CONTRACT 3). "No set" (made without --actions) follows
the live group; an empty set allows nothing; staff with change_apikey may only narrow a key, widening needs
accounts.manage_api_key_scope; every scope change is an `api_key.scope_changed` event the merchant sees."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.actions import Action
from accounts.models import ApiKey, User
from events.models import Event
from tests import factories

pytestmark = pytest.mark.django_db

CREDIT = {
    "method": "ACH",
    "type": "Credit",
    "amount": 100,
    "standardEntryClassCode": "PPD",
    "paymentDetails": {
        "name": "Probe",
        "accountType": "Checking",
        "accountNumber": "123456789",
        "routingNumber": "021000021",
    },
}


def _key(company, actions: str | None) -> tuple[APIClient, ApiKey]:
    out = StringIO()
    args = ["--company", str(company.uuid)] + ([] if actions is None else ["--actions", actions])
    call_command("create_api_key", *args, stdout=out)
    issued = json.loads(out.getvalue())
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued["authorization"])
    return client, ApiKey.objects.get(prefix=issued["prefix"])


def _staff(company, *permissions: str) -> User:
    user = User.objects.create_user(email="support@example.com", password="support password 1", is_staff=True)
    factories.membership(user, company, "support")
    for codename in ("view_apikey", "change_apikey", *permissions):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def test_key_with_an_empty_set_may_do_nothing(company):
    client, api_key = _key(company, "ViewReports")
    api_key.actions = []
    api_key.save(update_fields=["actions"])
    assert client.get("/reporting/transactions?page=0&pageSize=1").status_code == 403
    assert client.get("/customers").status_code == 403
    assert client.put("/transactions", CREDIT, format="json").status_code == 403


def test_key_made_without_actions_has_no_set_and_follows_the_live_group(company):
    client, api_key = _key(company, None)
    assert api_key.actions is None
    assert client.get("/customers").status_code == 200


def test_staff_clearing_every_box_leaves_the_key_able_to_do_nothing(client, company):
    """The review's reproduction: unticking everything used to grant everything."""
    key_client, api_key = _key(company, "ViewReports")
    assert key_client.put("/transactions", CREDIT, format="json").status_code == 403
    client.force_login(_staff(company))
    url = reverse("admin:accounts_apikey_change", args=[api_key.pk])
    assert client.post(url, {"name": "probe"}).status_code == 302
    api_key.refresh_from_db()
    assert api_key.actions == []
    assert key_client.put("/transactions", CREDIT, format="json").status_code == 403
    assert key_client.get("/reporting/transactions?page=0&pageSize=1").status_code == 403


@pytest.mark.parametrize(
    "form",
    [{"actions": [Action.VIEW_REPORTS, Action.CREATE_TRANSACTION]}, {"follows_live_group": "on"}],
    ids=["more-actions", "whole-live-group"],
)
def test_staff_without_the_scope_permission_cannot_widen_a_key(client, company, form):
    key_client, api_key = _key(company, "ViewReports")
    client.force_login(_staff(company))
    url = reverse("admin:accounts_apikey_change", args=[api_key.pk])
    response = client.post(url, {"name": "", **form})
    assert response.status_code == 200
    assert "only narrow" in response.content.decode()
    api_key.refresh_from_db()
    assert api_key.actions == [Action.VIEW_REPORTS]
    assert key_client.put("/transactions", CREDIT, format="json").status_code == 403
    assert not Event.objects.filter(type="api_key.scope_changed").exists()


def test_staff_with_the_scope_permission_may_widen_a_key(client, company):
    key_client, api_key = _key(company, "ViewReports")
    client.force_login(_staff(company, "manage_api_key_scope"))
    url = reverse("admin:accounts_apikey_change", args=[api_key.pk])
    assert client.post(url, {"name": "", "follows_live_group": "on"}).status_code == 302
    api_key.refresh_from_db()
    assert api_key.actions is None
    assert key_client.get("/customers").status_code == 200


def test_a_scope_change_is_an_event_the_merchant_sees(client, company, api_client):
    _, api_key = _key(company, "ViewReports,GetCustomer")
    client.force_login(_staff(company))
    url = reverse("admin:accounts_apikey_change", args=[api_key.pk])
    assert client.post(url, {"name": "", "actions": [Action.GET_CUSTOMER]}).status_code == 302
    client.post(url, {"name": "", "actions": [Action.GET_CUSTOMER]})  # unchanged: no second event

    events = api_client.get("/events", {"type": "api_key.scope_changed"}).json()["data"]
    assert len(events) == 1
    assert events[0]["objectUuid"] == str(company.uuid)
    assert events[0]["data"] == {
        "prefix": api_key.prefix,
        "name": "",
        "previousActions": [Action.GET_CUSTOMER, Action.VIEW_REPORTS],
        "actions": [Action.GET_CUSTOMER],
    }
