"""The OpenAPI document tells the truth: schemathesis generates requests for every operation of /api/schema/ (valid
and invalid ones, derandomized so every run sends the same requests) and checks each answer against the document:
no 5xx, a documented status, a documented content type, a body that matches the documented schema. Each request
once with an API key, once with a JWT; requests go in process to the WSGI application, against the test database."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, note, settings
from rest_framework_simplejwt.tokens import AccessToken
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests import factories

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
# Seeded and bounded for CI, where both suites run it. The coverage phase derives boundary and negative values from
# every schema (deterministic); on the reporting listing, its CSV and its background export, whose filter object names
# some 500 parameters, that is thousands of requests (80 s an operation), so there the fuzzing phase alone samples them.
CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 14,
        "generation": {"max-examples": 15, "deterministic": True, "database": "none"},
        "phases": {"coverage": {"unexpected-methods": []}, "stateful": {"enabled": False}},
        "operations": [
            {
                "include-path-regex": "^/reporting/(transactions|transactions/csv|exports)$",
                "phases": {"coverage": {"enabled": False}},
                "generation": {"max-examples": 60},
            }
        ],
    }
)


BODY_OBJECTS = {"customerUuid": "customer_uuid", "paymentMethodUuid": "payment_method_uuid"}


def _served_schema() -> dict[str, Any]:
    response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    return response.json()


schema = schemathesis.openapi.from_dict(_served_schema(), config=CONFIG)


@dataclass(frozen=True)
class Merchant:
    company_uuid: str
    api_key_authorization: str
    bearer_authorization: str
    path_objects: dict[str, str]  # path parameter -> an object of the merchant's that it can name


@pytest.fixture
def merchant(db) -> Merchant:
    company = factories.CompanyFactory()
    user = factories.UserFactory()
    factories.membership(user, company, "admin")
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    pending = factories.TransactionFactory(company=company, customer=customer, payment_method=method)
    return Merchant(
        company_uuid=str(company.uuid),
        api_key_authorization=factories.issue_api_key(company).authorization,
        bearer_authorization=f"Bearer {AccessToken.for_user(user)}",
        path_objects={
            "customer_uuid": str(customer.uuid),
            "payment_method_uuid": str(method.uuid),
            "transaction_uuid": str(pending.uuid),
        },
    )


@pytest.fixture
def wsgi_app():
    """The project's WSGI handler on the test's own connection: a real request would close it between requests."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield WSGIHandler()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _is_uuid(value: object) -> bool:
    try:
        uuid.UUID(str(value))
    except ValueError:
        return False
    return True


_EXAMPLES = itertools.count()
GENERATED_PARTS = ("path_parameters", "headers", "query", "body")


def _aim_at_merchant(case, merchant: Merchant, *, aimed: bool, bearer: bool) -> None:
    """Point an aimed example's well-formed path and body UUIDs at the merchant's own objects (the others' stay
    unknown: 404), and act for the merchant whenever the generated entityUuid is a well-formed UUID (malformed
    ones stay: 400)."""
    if aimed:
        for name, value in (case.path_parameters or {}).items():
            if name in merchant.path_objects and _is_uuid(value):
                case.path_parameters[name] = merchant.path_objects[name]
        if isinstance(case.body, dict):
            for name, path_name in BODY_OBJECTS.items():
                if _is_uuid(case.body.get(name, "")):
                    case.body[name] = merchant.path_objects[path_name]
    query = case.query if case.query is not None else {}
    if ("entityUuid" not in query and bearer) or _is_uuid(query.get("entityUuid", "")):
        query["entityUuid"] = merchant.company_uuid
    case.query = query


def _copy(value):
    """A generated part copied one level down (the aiming replaces top-level values only)."""
    return value.copy() if isinstance(value, MutableMapping | list) else value


# The fixtures hold what the examples of one operation share (the merchant, the app): by design.
_SHARED_FIXTURES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@schema.parametrize()
@_SHARED_FIXTURES
def test_every_operation_conforms_with_an_api_key_and_with_a_jwt(case, merchant, wsgi_app):
    """Each generated request goes once with each credential, as generated (the two would generate the same
    requests: one generation serves both)."""
    generated = {part: _copy(getattr(case, part)) for part in GENERATED_PARTS}
    aimed = next(_EXAMPLES) % 2 == 0  # every other example names the merchant's own objects
    for bearer in (False, True):
        for part, value in generated.items():
            setattr(case, part, _copy(value))
        _aim_at_merchant(case, merchant, aimed=aimed, bearer=bearer)
        note(f"with {'a JWT' if bearer else 'an API key'}")
        authorization = merchant.bearer_authorization if bearer else merchant.api_key_authorization
        case.call_and_validate(app=wsgi_app, headers={"Authorization": authorization}, checks=CHECKS)
