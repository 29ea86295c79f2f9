"""Staff admin: every accounts page loads, keys are revoked (never shown or created) here, actions are checkboxes."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.actions import ALL_ACTIONS, LIVE_API_KEY_GROUP, Action
from accounts.models import ActionGroup, ApiKey, Role, User
from tests import factories
from tests.accounts.conftest import probe_urls, set_live_actions  # noqa: F401 (probe_urls: a fixture)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("probe_urls")]

MODELS = ("company", "user", "membership", "role", "actiongroup", "apikey")


@pytest.fixture
def staff_client(client):
    admin_user = User.objects.create_superuser(email="staff@example.com", password="staff password 1")
    client.force_login(admin_user)
    return client


@pytest.fixture
def populated(company, issued_key):
    user = factories.UserFactory()
    factories.membership(user, company, "support")
    set_live_actions(ALL_ACTIONS)
    return {"company": company, "user": user, "key": issued_key}


@pytest.mark.parametrize("model", MODELS)
def test_changelist_and_search_pages_load(staff_client, populated, model):
    url = reverse(f"admin:accounts_{model}_changelist")
    assert staff_client.get(url).status_code == 200
    assert staff_client.get(url, {"q": "merchant"}).status_code == 200
    assert staff_client.get(url, {"q": str(populated["company"].uuid)}).status_code == 200


def test_company_search_finds_a_company_by_uuid(staff_client, populated, other_company):
    url = reverse("admin:accounts_company_changelist")
    response = staff_client.get(url, {"q": str(other_company.uuid)})
    assert other_company.name in response.content.decode()
    assert populated["company"].name not in response.content.decode()


def test_change_pages_load(staff_client, populated):
    group = ActionGroup.objects.get(name=LIVE_API_KEY_GROUP)
    role = Role.objects.get(name="support")
    membership = populated["user"].memberships.get()
    for model, obj in [
        ("company", populated["company"]),
        ("user", populated["user"]),
        ("membership", membership),
        ("role", role),
        ("actiongroup", group),
        ("apikey", populated["key"].api_key),
    ]:
        assert staff_client.get(reverse(f"admin:accounts_{model}_change", args=[obj.pk])).status_code == 200, model


def test_api_key_pages_never_show_the_hash_or_the_secret(staff_client, populated):
    api_key = populated["key"].api_key
    pages = [
        staff_client.get(reverse("admin:accounts_apikey_changelist")).content.decode(),
        staff_client.get(reverse("admin:accounts_apikey_change", args=[api_key.pk])).content.decode(),
    ]
    for page in pages:
        assert api_key.prefix in page
        assert api_key.key_hash not in page
        assert populated["key"].raw_key.split("_", 2)[2] not in page


def test_api_keys_cannot_be_added_in_the_admin(staff_client):
    assert staff_client.get(reverse("admin:accounts_apikey_add")).status_code == 403


def test_revoke_selected_keys_action_revokes_them_and_they_stop_working(staff_client, company):
    first, second, kept = (factories.issue_api_key(company) for _ in range(3))
    response = staff_client.post(
        reverse("admin:accounts_apikey_changelist"),
        {"action": "revoke_selected", "_selected_action": [first.api_key.pk, second.api_key.pk]},
    )
    assert response.status_code == 302
    assert set(ApiKey.objects.filter(revoked_at__isnull=False).values_list("pk", flat=True)) == {
        first.api_key.pk,
        second.api_key.pk,
    }
    for issued, status in [(first, 401), (kept, 200)]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=issued.authorization)
        assert client.get("/probe/reports").status_code == status


def test_role_actions_are_saved_from_checkboxes_in_action_order(staff_client):
    response = staff_client.post(
        reverse("admin:accounts_role_add"),
        {"name": "auditor", "actions": [Action.VIEW_REPORTS, Action.GET_CUSTOMER]},
    )
    assert response.status_code == 302, response.content
    assert Role.objects.get(name="auditor").actions == [Action.GET_CUSTOMER, Action.VIEW_REPORTS]


def test_role_with_an_unknown_action_is_refused(staff_client):
    response = staff_client.post(reverse("admin:accounts_role_add"), {"name": "rogue", "actions": ["Teleport"]})
    assert response.status_code == 200
    assert "Teleport is not one of the available choices" in response.content.decode()
    assert not Role.objects.filter(name="rogue").exists()


def test_editing_the_live_group_in_the_admin_takes_effect_for_api_keys(staff_client, api_client):
    set_live_actions(ALL_ACTIONS)
    group = ActionGroup.objects.get(name=LIVE_API_KEY_GROUP)
    assert api_client.get("/probe/reports").status_code == 200
    response = staff_client.post(
        reverse("admin:accounts_actiongroup_change", args=[group.pk]),
        {"actions": [action for action in ALL_ACTIONS if action != Action.VIEW_REPORTS]},
    )
    assert response.status_code == 302, response.content
    assert api_client.get("/probe/reports").status_code == 403


def test_live_group_cannot_be_deleted_or_renamed(staff_client):
    set_live_actions(ALL_ACTIONS)
    group = ActionGroup.objects.get(name=LIVE_API_KEY_GROUP)
    assert staff_client.get(reverse("admin:accounts_actiongroup_delete", args=[group.pk])).status_code == 403
    staff_client.post(
        reverse("admin:accounts_actiongroup_change", args=[group.pk]), {"name": "renamed", "actions": ALL_ACTIONS}
    )
    group.refresh_from_db()
    assert group.name == LIVE_API_KEY_GROUP


def test_user_added_in_the_admin_is_stored_lowercase_and_can_log_in(staff_client, anonymous_client):
    response = staff_client.post(
        reverse("admin:accounts_user_add"),
        {
            "email": "New.Dev@Example.com",
            "usable_password": "true",
            "password1": "fresh pass 123",
            "password2": "fresh pass 123",
        },
    )
    assert response.status_code == 302, response.content
    assert User.objects.filter(email="new.dev@example.com").exists()
    login = anonymous_client.post(
        "/auth/login", {"email": "new.dev@example.com", "password": "fresh pass 123"}, format="json"
    )
    assert login.status_code == 200


def test_user_with_an_email_differing_only_in_case_is_refused(staff_client):
    factories.UserFactory(email="taken@example.com")
    response = staff_client.post(
        reverse("admin:accounts_user_add"),
        {
            "email": "TAKEN@example.com",
            "usable_password": "true",
            "password1": "fresh pass 123",
            "password2": "fresh pass 123",
        },
    )
    assert response.status_code == 200
    assert User.objects.filter(email__iexact="taken@example.com").count() == 1


def test_staff_log_in_to_the_admin_with_any_case_of_their_email(client):
    User.objects.create_superuser(email="boss@example.com", password="staff password 1")
    response = client.post(
        reverse("admin:login"), {"username": "Boss@Example.com", "password": "staff password 1", "next": "/admin/"}
    )
    assert response.status_code == 302
