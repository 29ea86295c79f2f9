"""Sends reporting reads to the replica alias when REPORTING_DATABASE_URL configures one."""

from __future__ import annotations

from django.conf import settings

REPORTING_ALIAS = "reporting"


def reporting_database() -> str:
    return REPORTING_ALIAS if REPORTING_ALIAS in settings.DATABASES else "default"


class ReportingReplicaRouter:
    """Every write and every ordinary read goes to default; reporting selectors ask for
    `reporting_database()` explicitly with `.using()`, and migrations never run on the replica."""

    def db_for_read(self, model, **hints):
        return None

    def db_for_write(self, model, **hints):
        return "default"

    def allow_relation(self, obj1, obj2, **hints):
        return True

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        return db != REPORTING_ALIAS
