"""Bearer tokens: login -> refresh -> a new access token that works; bad, expired or garbage tokens are 401."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient
from rest_framework_simplejwt.state import token_backend

from accounts.services import refresh_token_issue, user_set_password
from tests import factories
from tests.concurrency import at_once

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("probe_urls")]

PASSWORD = "correct horse battery"


def _member(company, role_name: str = "reporting"):
    user = factories.UserFactory()
    factories.membership(user, company, role_name)
    return user


def _bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def test_refresh_token_gives_a_new_access_token_that_acts_for_the_entity(anonymous_client, company):
    user = _member(company)
    login = anonymous_client.post("/auth/login", {"email": user.email, "password": PASSWORD}, format="json")
    refresh_token = login.json()["data"]["refreshToken"]
    refresh = anonymous_client.post("/auth/refresh", {"refreshToken": refresh_token}, format="json")
    assert refresh.status_code == 200, refresh.content
    data = refresh.json()["data"]
    assert data["tokenType"] == "Bearer" and data["expiresIn"] == 900 and data["refreshToken"]
    response = _bearer(data["accessToken"]).get(f"/probe/reports?entityUuid={company.uuid}")
    assert response.status_code == 200
    assert response.json()["data"]["companyUuid"] == str(company.uuid)


def test_login_access_token_acts_for_the_entity(anonymous_client, company):
    user = _member(company)
    login = anonymous_client.post("/auth/login", {"email": user.email.upper(), "password": PASSWORD}, format="json")
    response = _bearer(login.json()["data"]["accessToken"]).get(f"/probe/reports?entityUuid={company.uuid}")
    assert response.status_code == 200


@pytest.mark.parametrize("garbage", ["garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30.x"])
def test_garbage_refresh_token_is_401(anonymous_client, garbage):
    response = anonymous_client.post("/auth/refresh", {"refreshToken": garbage}, format="json")
    assert response.status_code == 401
    assert response.json()["errors"][0]["code"] == "authentication_failed"


@pytest.mark.parametrize("body", [{"refreshToken": ""}, {"refreshToken": "x" * 5000}, {"refreshToken": 7}, {}])
def test_malformed_refresh_body_is_400_naming_the_field(anonymous_client, body):
    response = anonymous_client.post("/auth/refresh", body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "refreshToken"


def test_access_token_is_not_accepted_as_refresh_token(anonymous_client, company):
    user = _member(company)
    response = anonymous_client.post(
        "/auth/refresh", {"refreshToken": str(refresh_token_issue(user=user).access_token)}, format="json"
    )
    assert response.status_code == 401


def test_expired_refresh_token_is_401(anonymous_client, company):
    token = refresh_token_issue(user=_member(company))
    token.set_exp(lifetime=-timedelta(seconds=1))
    response = anonymous_client.post("/auth/refresh", {"refreshToken": str(token)}, format="json")
    assert response.status_code == 401


def test_expired_bearer_is_401(company):
    token = refresh_token_issue(user=_member(company)).access_token
    token.set_exp(lifetime=-timedelta(seconds=1))
    response = _bearer(str(token)).get(f"/probe/reports?entityUuid={company.uuid}")
    assert response.status_code == 401
    assert response.json()["message"] == "Invalid or expired token."


@pytest.mark.parametrize("token", ["garbage", "a.b.c", "eyJhbGciOiJIUzI1NiJ9.e30.x"])
def test_garbage_bearer_is_401(company, token):
    response = _bearer(token).get(f"/probe/reports?entityUuid={company.uuid}")
    assert response.status_code == 401
    assert response.json()["status"] == "error"


def test_refresh_token_is_not_accepted_as_bearer(company):
    token = refresh_token_issue(user=_member(company))
    assert _bearer(str(token)).get(f"/probe/reports?entityUuid={company.uuid}").status_code == 401


def test_bearer_of_a_deactivated_user_is_401(company):
    user = _member(company)
    token = refresh_token_issue(user=user).access_token
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert _bearer(str(token)).get(f"/probe/reports?entityUuid={company.uuid}").status_code == 401


def _login(client: APIClient, user) -> dict:
    response = client.post("/auth/login", {"email": user.email, "password": PASSWORD}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["data"]


def _refresh(client: APIClient, token: str):
    return client.post("/auth/refresh", {"refreshToken": token}, format="json")


def test_refresh_rotates_and_the_old_refresh_token_is_refused_from_then_on(anonymous_client, company):
    first = _login(anonymous_client, _member(company))["refreshToken"]
    rotated = _refresh(anonymous_client, first)
    assert rotated.status_code == 200
    second = rotated.json()["data"]["refreshToken"]
    assert second != first
    assert _refresh(anonymous_client, second).status_code == 200
    again = _refresh(anonymous_client, first)
    assert again.status_code == 401 and again.json()["errors"][0]["code"] == "authentication_failed"


def test_refresh_of_a_deactivated_user_is_401(anonymous_client, company):
    user = _member(company)
    token = _login(anonymous_client, user)["refreshToken"]
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert _refresh(anonymous_client, token).status_code == 401


def test_refresh_of_a_user_who_is_no_longer_a_member_of_any_company_is_401(anonymous_client, company):
    user = _member(company)
    token = _login(anonymous_client, user)["refreshToken"]
    user.memberships.all().delete()
    response = _refresh(anonymous_client, token)
    assert response.status_code == 401 and "no longer" in response.json()["message"]


def test_a_password_change_revokes_refresh_and_access_tokens(anonymous_client, company):
    user = _member(company)
    tokens = _login(anonymous_client, user)
    user_set_password(user=user, password="another good password 42")
    assert _refresh(anonymous_client, tokens["refreshToken"]).status_code == 401
    assert _bearer(tokens["accessToken"]).get(f"/probe/reports?entityUuid={company.uuid}").status_code == 401


def test_a_password_change_in_the_admin_revokes_refresh_tokens(anonymous_client, company):
    user = _member(company)
    token = _login(anonymous_client, user)["refreshToken"]
    operator = Client()
    operator.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    response = operator.post(
        f"/admin/accounts/user/{user.pk}/password/",
        {"password1": "another good password 42", "password2": "another good password 42", "usable_password": "true"},
    )
    assert response.status_code == 302, response.content
    assert _refresh(anonymous_client, token).status_code == 401


def test_deactivating_a_user_in_the_admin_revokes_refresh_tokens_for_good(anonymous_client, company):
    user = _member(company)
    token = _login(anonymous_client, user)["refreshToken"]
    operator = Client()
    operator.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    form = {
        "email": user.email,
        "full_name": "",
        "is_staff": "",
        "date_joined_0": "2026-11-01",
        "date_joined_1": "00:00:00",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = operator.post(f"/admin/accounts/user/{user.pk}/change/", form)
    assert response.status_code == 302, response.content
    user.refresh_from_db()
    assert not user.is_active
    user.is_active = True
    user.save(update_fields=["is_active"])
    assert _refresh(anonymous_client, token).status_code == 401


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_refresh_token_used_by_ten_parallel_refreshes_rotates_once():
    company = factories.CompanyFactory()
    token = str(refresh_token_issue(user=_member(company)))
    codes = at_once(lambda: _refresh(APIClient(), token).status_code, 10)
    assert sorted(codes) == [200] + [401] * 9


def test_reusing_a_rotated_refresh_token_revokes_its_whole_session(anonymous_client, company):
    """N12: whoever refreshed first (a thief, or the owner), the reuse ends the session for both."""
    user = _member(company)
    first = _login(anonymous_client, user)["refreshToken"]
    second = _refresh(anonymous_client, first).json()["data"]["refreshToken"]
    other_session = _login(anonymous_client, user)["refreshToken"]  # another device: its own family

    reuse = _refresh(anonymous_client, first)
    assert reuse.status_code == 401 and "already used" in reuse.json()["message"]
    assert _refresh(anonymous_client, second).status_code == 401
    assert _refresh(anonymous_client, other_session).status_code == 200


def test_a_session_cannot_be_refreshed_past_its_absolute_lifetime(anonymous_client, company, settings):
    settings.JWT_SESSION_MAX_SECONDS = 3 * 24 * 3600
    user = _member(company)
    token = _login(anonymous_client, user)["refreshToken"]
    start = timezone.now()
    for hours in (20, 40, 60):  # refreshed within each token's day, as an app that stays open does
        with time_machine.travel(start + timedelta(hours=hours)):
            answer = _refresh(anonymous_client, token)
            assert answer.status_code == 200, answer.content
            token = answer.json()["data"]["refreshToken"]
    with time_machine.travel(start + timedelta(days=3, minutes=1)):
        refused = _refresh(anonymous_client, token)
    assert refused.status_code == 401
    # The last token of the session never outlives the session either.
    claims = token_backend.decode(token, verify=False)
    assert claims["exp"] <= claims["auth_time"] + settings.JWT_SESSION_MAX_SECONDS
