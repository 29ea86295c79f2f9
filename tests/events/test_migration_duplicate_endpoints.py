"""events 0003 adds a unique (company, url) among live endpoints: a database that already holds a company's two
live endpoints for one URL must still migrate, keeping the oldest and deleting the copies."""

from __future__ import annotations

import pytest

from tests.migration_steps import latest_migrations_after, migrate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.one_transaction]

BEFORE = [("events", "0002_grant_webhook_actions")]
AFTER = [("events", "0003_fair_fanout")]


def test_duplicate_live_endpoints_migrate_to_one_the_oldest():
    with latest_migrations_after():
        apps = migrate(BEFORE)
        company = apps.get_model("accounts", "Company").objects.create(name="Dup Co")
        endpoints = apps.get_model("events", "WebhookEndpoint")
        fields = {field.name for field in endpoints._meta.get_fields()}
        extra = {"secret": "whsec_x"} if "secret" in fields else {}
        oldest, copy = (
            endpoints.objects.create(company=company, url="https://hooks.example.com/x", **extra) for _ in range(2)
        )
        other = endpoints.objects.create(company=company, url="https://hooks.example.com/y", **extra)

        apps = migrate(AFTER)

        endpoints = apps.get_model("events", "WebhookEndpoint")
        live = set(endpoints.objects.filter(deleted_at__isnull=True).values_list("pk", flat=True))
        assert live == {oldest.pk, other.pk}
        assert endpoints.objects.get(pk=copy.pk).deleted_at is not None
