"""The reporting listing's OpenAPI parameters are generated from the field registry: every reserved parameter is
documented, and every documented filter name is one the service accepts (and the registry's are all there)."""

from __future__ import annotations

import uuid

import pytest

from reporting.registry import BY_FILTER, CONDITIONS, QUERY_PARAMETERS, FieldType
from tests.reporting.conftest import report

pytestmark = pytest.mark.django_db

# A value each field type parses, for every condition (in/between take lists; like any text).
VALUES = {
    FieldType.STRING: "x",
    FieldType.UUID: str(uuid.uuid4()),
    FieldType.ID: "1",
    FieldType.INTEGER: "1",
    FieldType.TIMESTAMP: "2026-01-01",
    FieldType.DATE: "2026-01-01",
    FieldType.JSON: '"x"',
    FieldType.BOOLEAN: "true",
    FieldType.ACCOUNT: "123456789",
}


def _reporting_operation(anonymous_client) -> dict:
    return anonymous_client.get("/api/schema/?format=json").json()["paths"]["/reporting/transactions"]["get"]


def test_every_reserved_parameter_is_documented(anonymous_client):
    documented = {p["name"] for p in _reporting_operation(anonymous_client)["parameters"]}
    assert {p.name for p in QUERY_PARAMETERS} | {"entityUuid", "filters"} == documented


def test_documented_filters_are_exactly_the_registry_names_and_conditions(anonymous_client):
    (filters,) = [p for p in _reporting_operation(anonymous_client)["parameters"] if p["name"] == "filters"]
    assert (filters["style"], filters["explode"], filters["schema"]["additionalProperties"]) == ("form", True, False)
    expected = {name for name in BY_FILTER} | {
        f"{name}:{condition}" for name, f in BY_FILTER.items() for condition in CONDITIONS[f.type]
    }
    assert set(filters["schema"]["properties"]) == expected


def test_every_documented_filter_is_accepted_by_the_service(anonymous_client, api_client):
    (filters,) = [p for p in _reporting_operation(anonymous_client)["parameters"] if p["name"] == "filters"]
    refused = []
    for name in filters["schema"]["properties"]:
        field, _, condition = name.partition(":")
        value = VALUES[BY_FILTER[field].type]
        if condition in ("in", "between"):
            value = f"{value},{value}"
        response = report(api_client, pageSize=1, **{name: value})
        if response.status_code != 200:
            refused.append((name, response.json()["message"]))
    assert not refused
