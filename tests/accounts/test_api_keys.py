"""API-key authentication: both Basic encodings, last use recorded, secrets kept only as SHA-256."""

from __future__ import annotations

import base64
import hashlib
import secrets

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiKey
from accounts.services import basic_authorization, hash_api_key
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("probe_urls")]


def _client(authorization: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


def test_basic_with_key_and_empty_password_works(issued_key, company):
    response = _client(issued_key.authorization).get("/probe/reports")
    assert response.status_code == 200
    assert response.json()["data"]["companyUuid"] == str(company.uuid)


def test_basic_with_base64_of_the_bare_key_works(issued_key, company):
    bare = base64.b64encode(issued_key.raw_key.encode()).decode()
    response = _client(f"Basic {bare}").get("/probe/reports")
    assert response.status_code == 200
    assert response.json()["data"]["companyUuid"] == str(company.uuid)


def test_basic_scheme_name_is_case_insensitive(issued_key):
    assert _client(issued_key.authorization.replace("Basic", "basic")).get("/probe/reports").status_code == 200


def test_key_whose_secret_contains_underscores_and_dashes_authenticates(company):
    # urlsafe base64 secrets contain "_" and "-" in most keys; the prefix is what is looked up.
    prefix = secrets.token_hex(6)
    raw_key = f"vk_{prefix}_ab_cd-ef_{secrets.token_urlsafe(16)}"
    ApiKey.objects.create(company=company, prefix=prefix, key_hash=hash_api_key(raw_key))
    assert _client(basic_authorization(raw_key)).get("/probe/reports").status_code == 200


@pytest.mark.parametrize(
    "authorization",
    [
        "Basic",
        "Basic !!!not-base64!!!",
        "Basic " + base64.b64encode(b"hello").decode(),
        "Basic " + base64.b64encode(b"vk__:").decode(),
        "Basic " + base64.b64encode(b"\xff\xfe").decode(),
        "Basic a b",
        "Token abc",
    ],
)
def test_malformed_basic_credentials_are_401(db, authorization):
    response = _client(authorization).get("/probe/reports")
    assert response.status_code == 401
    assert response.json()["status"] == "error"


def test_401_names_the_basic_scheme(anonymous_client):
    response = anonymous_client.get("/probe/reports")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Basic")


def test_use_of_a_key_records_last_used_at(issued_key):
    assert issued_key.api_key.last_used_at is None
    before = timezone.now()
    assert _client(issued_key.authorization).get("/probe/reports").status_code == 200
    issued_key.api_key.refresh_from_db()
    assert issued_key.api_key.last_used_at is not None and issued_key.api_key.last_used_at >= before


def test_a_failed_key_does_not_record_use(issued_key):
    wrong = issued_key.raw_key[:-2] + ("AA" if not issued_key.raw_key.endswith("AA") else "BB")
    assert _client(basic_authorization(wrong)).get("/probe/reports").status_code == 401
    issued_key.api_key.refresh_from_db()
    assert issued_key.api_key.last_used_at is None


def test_key_is_stored_only_as_its_sha256(issued_key):
    row = ApiKey.objects.filter(pk=issued_key.api_key.pk).values().get()
    assert row["key_hash"] == hashlib.sha256(issued_key.raw_key.encode()).hexdigest()
    secret_part = issued_key.raw_key.split("_", 2)[2]
    for column, value in row.items():
        assert issued_key.raw_key not in str(value), column
        assert secret_part not in str(value), column


def test_two_keys_of_one_company_are_distinct(company):
    first, second = factories.issue_api_key(company), factories.issue_api_key(company)
    assert first.raw_key != second.raw_key and first.api_key.prefix != second.api_key.prefix


@pytest.mark.postgres
def test_a_prefix_held_by_two_companies_authenticates_each_key_as_its_own_company(company, other_company):
    # Prefixes are unique per company only (UNIQUE (prefix, company_id), CONTRACT 8): the secret picks the key.
    prefix = secrets.token_hex(6)
    keys = {}
    for owner in (company, other_company):
        raw_key = f"vk_{prefix}_{secrets.token_urlsafe(32)}"
        ApiKey.objects.create(company=owner, prefix=prefix, key_hash=hash_api_key(raw_key))
        keys[owner.uuid] = raw_key
    for owner_uuid, raw_key in keys.items():
        response = _client(basic_authorization(raw_key)).get("/probe/reports")
        assert response.status_code == 200
        assert response.json()["data"]["companyUuid"] == str(owner_uuid)
    wrong_secret = f"vk_{prefix}_{secrets.token_urlsafe(32)}"
    assert _client(basic_authorization(wrong_secret)).get("/probe/reports").status_code == 401


@pytest.mark.postgres
def test_one_key_stored_for_two_companies_authenticates_as_neither(company, other_company):
    raw_key = f"vk_{secrets.token_hex(6)}_{secrets.token_urlsafe(32)}"
    for owner in (company, other_company):
        ApiKey.objects.create(company=owner, prefix=raw_key.split("_")[1], key_hash=hash_api_key(raw_key))
    assert _client(basic_authorization(raw_key)).get("/probe/reports").status_code == 401
