"""The OpenAPI schema is served and describes both credentials of CONTRACT 3."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from drf_spectacular.drainage import GENERATOR_STATS

from accounts.actions import ROUTE_ACTIONS
from tests.accounts.conftest import route_templates

pytestmark = pytest.mark.django_db


def test_schema_is_served_as_json_with_both_security_schemes(anonymous_client):
    response = anonymous_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    schemes = schema["components"]["securitySchemes"]
    assert schemes["apiKey"] == {"type": "http", "scheme": "basic", "description": schemes["apiKey"]["description"]}
    assert schemes["bearerJWT"]["scheme"] == "bearer" and schemes["bearerJWT"]["bearerFormat"] == "JWT"


def test_schema_lists_every_guarded_route_with_both_credentials(anonymous_client):
    paths = anonymous_client.get("/api/schema/?format=json").json()["paths"]
    templates = route_templates()
    for url_name, method in ROUTE_ACTIONS:
        template = templates[url_name]
        operation = paths[template][method.lower()]
        assert {"apiKey": []} in operation["security"] and {"bearerJWT": []} in operation["security"], template


def test_every_guarded_operation_documents_entity_uuid(anonymous_client):
    paths = anonymous_client.get("/api/schema/?format=json").json()["paths"]
    templates = route_templates()
    for url_name, method in ROUTE_ACTIONS:
        parameters = paths[templates[url_name]][method.lower()].get("parameters", [])
        entity = [p for p in parameters if p["name"] == "entityUuid" and p["in"] == "query"]
        assert len(entity) == 1 and entity[0]["schema"]["format"] == "uuid", (url_name, method)


def test_operation_ids_are_unique(anonymous_client):
    paths = anonymous_client.get("/api/schema/?format=json").json()["paths"]
    ids = [operation["operationId"] for path in paths.values() for operation in path.values()]
    assert len(ids) == len(set(ids))


def test_login_is_documented_without_credentials(anonymous_client):
    paths = anonymous_client.get("/api/schema/?format=json").json()["paths"]
    login = paths["/auth/login"]["post"]
    assert login.get("security", []) in ([], [{}])
    assert all(p["name"] != "entityUuid" for p in login.get("parameters", []))
    assert "requestBody" in login


def test_swagger_ui_is_served(anonymous_client):
    response = anonymous_client.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger" in response.content.lower()


def test_schema_is_valid_openapi_and_auth_views_generate_without_warnings(tmp_path, capsys):
    GENERATOR_STATS.reset()  # warnings are printed once per process; earlier schema requests must not hide them
    call_command("spectacular", "--validate", "--file", str(tmp_path / "schema.yaml"))
    warnings = [line for line in capsys.readouterr().err.splitlines() if "accounts/" in line]
    assert not warnings, warnings
