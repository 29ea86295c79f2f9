"""L7 (security review 2026-11-25): a company can be suspended in the admin, with a reason and a permission of its
own. Then every API route answers 403 `company_suspended`, for API keys and Bearer tokens alike, `originate`
leaves its entries Pending, and the suspension (and the reinstatement) is an event on the company's trail."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from accounts.actions import ROUTE_ACTIONS
from accounts.models import Company, User
from events.account_changes import company_reinstate, company_suspend
from events.models import Event
from tests import factories
from tests.accounts.conftest import bearer_client, call_route
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from transactions.models import Status

pytestmark = pytest.mark.django_db

ROUTES = sorted(ROUTE_ACTIONS)


def _suspended_code(response) -> str:
    assert response.status_code == 403, response.content
    return response.json()["errors"][0]["code"]


@pytest.mark.parametrize(("url_name", "method"), ROUTES, ids=[f"{m} {n}" for n, m in ROUTES])
def test_every_route_is_403_company_suspended_for_keys_and_tokens(company, api_client, url_name, method):
    user = factories.UserFactory()
    factories.membership(user, company, "admin")
    company_suspend(company=company, reason="chargeback investigation")
    assert _suspended_code(call_route(api_client, url_name, method)) == "company_suspended"
    token = bearer_client(user)
    assert _suspended_code(call_route(token, url_name, method, entityUuid=str(company.uuid))) == "company_suspended"


def test_another_company_is_untouched(company, other_company, other_api_client):
    company_suspend(company=company, reason="fraud review")
    assert other_api_client.get("/customers").status_code == 200


def test_originate_leaves_a_suspended_companys_entries_pending(company, other_company):
    mine, theirs = bank_txn(company), bank_txn(other_company)
    company_suspend(company=company, reason="fraud review")
    assert run("originate", "--at", MONDAY_MORNING)["transactions"] == 1
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert (mine.status, theirs.status) == (Status.PENDING, Status.PROCESSING)

    company_reinstate(company=company)
    assert run("originate", "--at", MONDAY_MORNING)["transactions"] == 1
    mine.refresh_from_db()
    assert mine.status == Status.PROCESSING


def _staff(company, *permissions: str) -> User:
    user = User.objects.create_user(email="ops@example.com", password="ops password 123", is_staff=True)
    factories.membership(user, company, "support")
    for codename in ("view_company", "change_company", *permissions):
        user.user_permissions.add(Permission.objects.get(codename=codename))
    return user


def _suspend_in_admin(client, company, reason: str):
    return client.post(
        reverse("admin:accounts_company_changelist"),
        {"action": "suspend_selected", "_selected_action": [company.pk], "reason": reason, "index": 0},
    )


def test_staff_with_the_permission_suspend_with_a_reason_recorded_as_an_event(client, company, api_client):
    client.force_login(_staff(company, "suspend_company"))
    _suspend_in_admin(client, company, "")  # no reason: nothing happens
    assert Company.objects.get(pk=company.pk).suspended_at is None

    _suspend_in_admin(client, company, "card testing reported by the bank")
    company.refresh_from_db()
    assert company.suspended_at is not None and company.suspension_reason == "card testing reported by the bank"
    assert _suspended_code(api_client.get("/customers")) == "company_suspended"
    event = Event.objects.get(company=company, type="company.suspended")
    assert event.data["reason"] == "card testing reported by the bank"

    client.post(
        reverse("admin:accounts_company_changelist"),
        {"action": "reinstate_selected", "_selected_action": [company.pk], "index": 0},
    )
    assert api_client.get("/customers").status_code == 200
    assert Event.objects.filter(company=company, type="company.reinstated").count() == 1


def test_staff_without_the_permission_cannot_suspend(client, company, api_client):
    client.force_login(_staff(company))
    _suspend_in_admin(client, company, "no grant")
    company.refresh_from_db()
    assert company.suspended_at is None
    assert api_client.get("/customers").status_code == 200
