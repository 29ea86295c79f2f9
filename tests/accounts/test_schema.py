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


def _operations(anonymous_client):
    paths = anonymous_client.get("/api/schema/?format=json").json()["paths"]
    return [(template, method, operation) for template, ops in paths.items() for method, operation in ops.items()]


ERROR_REF = {"$ref": "#/components/schemas/ErrorEnvelope"}


def test_every_success_body_is_documented_inside_the_envelope(anonymous_client):
    for template, method, operation in _operations(anonymous_client):
        for status, response in operation["responses"].items():
            if not status.startswith("2") or status == "204":
                continue
            if set(response["content"]) <= {"text/csv", "application/pdf", "application/octet-stream"}:
                continue  # a file: an export download, GET /reporting/transactions/csv, a mandate's proof or evidence
            schema = response["content"]["application/json"]["schema"]
            assert schema["required"][:2] == ["status", "data"], (template, method, status)
            assert schema["properties"]["status"] == {"type": "string", "enum": ["success"]}, (template, method)


def test_every_failure_is_documented_as_the_error_envelope(anonymous_client):
    for template, method, operation in _operations(anonymous_client):
        failures = {status: r for status, r in operation["responses"].items() if status >= "400"}
        guarded = operation.get("security", []) not in ([], [{}])
        expected = {"400", "401", "503"} | ({"403"} if guarded else set())
        expected |= {"404"} if "{" in template else set()
        assert expected <= set(failures), (template, method, sorted(failures))
        for status, response in failures.items():
            assert response["content"] == {"application/json": {"schema": ERROR_REF}}, (template, method, status)


def test_customer_list_and_reporting_document_the_list_envelope_with_meta(anonymous_client):
    document = anonymous_client.get("/api/schema/?format=json").json()
    paths = document["paths"]
    metas = {}
    for template in ("/customers", "/reporting/transactions"):
        schema = paths[template]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert schema["properties"]["data"]["type"] == "array"
        name = schema["properties"]["meta"]["$ref"].removeprefix("#/components/schemas/")
        metas[template] = document["components"]["schemas"][name]["properties"]["pagination"]["properties"]
    # F25: the example Swagger UI draws for /customers shows only what that route answers.
    assert set(metas["/customers"]) == {"page", "pageSize", "totalFilteredRows", "totalRows"}
    assert {"nextCursor", "totalFilteredRowsIsLowerBound"} <= set(metas["/reporting/transactions"])
    reporting = paths["/reporting/transactions"]["get"]["responses"]["200"]["content"]
    assert reporting["text/csv"]["schema"] == {"type": "string"}
