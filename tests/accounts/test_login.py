from __future__ import annotations

import pytest

from tests import factories

pytestmark = pytest.mark.django_db


def test_login_returns_bearer_tokens(anonymous_client):
    user = factories.UserFactory()
    response = anonymous_client.post(
        "/auth/login", {"email": user.email, "password": "correct horse battery"}, format="json"
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "success"
    assert body["data"]["tokenType"] == "Bearer"
    assert body["data"]["expiresIn"] == 900
    assert body["data"]["accessToken"] and body["data"]["refreshToken"]


def test_wrong_password_is_401_in_error_envelope(anonymous_client):
    user = factories.UserFactory()
    response = anonymous_client.post("/auth/login", {"email": user.email, "password": "nope"}, format="json")
    assert response.status_code == 401
    assert response.json() == {
        "status": "error",
        "data": None,
        "message": "Invalid email or password.",
        "errors": [{"field": None, "code": "authentication_failed", "message": "Invalid email or password."}],
    }


def test_malformed_json_is_400_envelope(anonymous_client):
    response = anonymous_client.generic("POST", "/auth/login", "{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["status"] == "error"


def test_unknown_path_is_404_envelope(anonymous_client):
    response = anonymous_client.get("/nowhere")
    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "not_found"
