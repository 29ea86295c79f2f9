"""Bearer tokens: login -> refresh -> a new access token that works; bad, expired or garbage tokens are 401."""

from __future__ import annotations

from datetime import timedelta

import pytest
from rest_framework.test import APIClient
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken

from tests import factories

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
    response = anonymous_client.post("/auth/refresh", {"refreshToken": str(AccessToken.for_user(user))}, format="json")
    assert response.status_code == 401


def test_expired_refresh_token_is_401(anonymous_client, company):
    token = RefreshToken.for_user(_member(company))
    token.set_exp(lifetime=-timedelta(seconds=1))
    response = anonymous_client.post("/auth/refresh", {"refreshToken": str(token)}, format="json")
    assert response.status_code == 401


def test_expired_bearer_is_401(company):
    token = AccessToken.for_user(_member(company))
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
    token = RefreshToken.for_user(_member(company))
    assert _bearer(str(token)).get(f"/probe/reports?entityUuid={company.uuid}").status_code == 401


def test_bearer_of_a_deactivated_user_is_401(company):
    user = _member(company)
    token = AccessToken.for_user(user)
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert _bearer(str(token)).get(f"/probe/reports?entityUuid={company.uuid}").status_code == 401
