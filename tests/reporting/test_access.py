"""Who may read the report, and whose rows they see."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Role
from tests import factories
from tests.reporting.conftest import build_transaction, ids_of, report

pytestmark = pytest.mark.django_db


def _bearer_client(company, role_name, actions=None):
    if actions is not None:
        Role.objects.get_or_create(name=role_name, defaults={"actions": actions})
    user = factories.UserFactory()
    factories.membership(user, company, role_name)
    client = APIClient()
    login = client.post("/auth/login", {"email": user.email, "password": "correct horse battery"}, format="json")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {login.json()['data']['accessToken']}")
    return client


def test_anonymous_is_401(anonymous_client, company):
    response = report(anonymous_client)
    assert response.status_code == 401
    assert response.json()["status"] == "error"


def test_bad_api_key_is_401(anonymous_client, company):
    anonymous_client.credentials(HTTP_AUTHORIZATION="Basic bm9wZTo=")
    assert report(anonymous_client).status_code == 401


def test_reporting_role_may_read(company):
    txn = build_transaction(company)
    client = _bearer_client(company, "reporting")
    assert ids_of(report(client, entityUuid=str(company.uuid))) == {txn.pk}


def test_role_without_view_reports_is_403(company):
    client = _bearer_client(company, "viewer-no-reports", actions=["ViewTransactions"])
    response = report(client, entityUuid=str(company.uuid))
    assert response.status_code == 403


def test_bearer_for_a_company_without_membership_is_403(company, other_company):
    client = _bearer_client(company, "reporting")
    assert report(client, entityUuid=str(other_company.uuid)).status_code == 403


def test_other_companies_rows_never_appear_or_count(api_client, company, other_company):
    mine = build_transaction(company, amount=500)
    theirs = build_transaction(other_company, amount=500)
    body = report(api_client, amount="500").json()
    assert [r["numericId"] for r in body["data"]] == [mine.pk]
    assert body["meta"]["pagination"]["totalRows"] == 1
    assert body["meta"]["pagination"]["totalFilteredRows"] == 1
    assert ids_of(report(api_client, numericid=str(theirs.pk))) == set()
    assert ids_of(report(api_client, uuid=str(theirs.uuid))) == set()
    csv_body = b"".join(report(api_client, format="csv").streaming_content).decode()
    assert str(theirs.uuid) not in csv_body and str(mine.uuid) in csv_body


def test_api_key_with_other_entity_is_403(api_client, company, other_company):
    assert report(api_client, entityUuid=str(other_company.uuid)).status_code == 403
