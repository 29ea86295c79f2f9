"""Shared fixtures: companies, API keys, users and ready-made API clients."""

from __future__ import annotations

import pytest
from django.core.cache import caches
from django.db import connection
from rest_framework.test import APIClient

from accounts.selectors import clear_action_group_cache
from tests import factories


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_action_group_cache():
    clear_action_group_cache()
    yield
    clear_action_group_cache()


@pytest.fixture(autouse=True)
def _fresh_local_cache():
    """The per-process cache outlives a test's rolled-back rows, and SQLite reuses their ids."""
    caches["local"].clear()
    yield
    caches["local"].clear()


@pytest.fixture
def debug_mode(settings):
    """DEBUG on, as under `make run` (pytest-django runs tests with DEBUG off): demo and seed commands run."""
    settings.DEBUG = True


@pytest.fixture
def company(db):
    return factories.CompanyFactory()


@pytest.fixture
def other_company(db):
    return factories.CompanyFactory(name="Other Merchant")


@pytest.fixture
def issued_key(company):
    return factories.issue_api_key(company)


@pytest.fixture
def api_client(issued_key) -> APIClient:
    """A client authenticated with an API key of `company`."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
    return client


@pytest.fixture
def other_api_client(other_company) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(other_company).authorization)
    return client


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


def pytest_collection_modifyitems(config, items):
    """Tests marked `postgres` (real-thread concurrency, COPY, pg_trgm) run only against PostgreSQL."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def is_postgres() -> bool:
    return connection.vendor == "postgresql"
