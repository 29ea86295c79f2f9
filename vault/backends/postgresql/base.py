"""Django's PostgreSQL backend, aware of the company-scoped keys (transactions 0012, vault/company_keys.py).

A merchant-owned table's primary key is (id, company_id) in the database while Django's model says `id`. Django
collapses GROUP BY to a selected model's primary key on PostgreSQL (functional dependency), which PostgreSQL now
refuses for `id` alone; for those models it groups by every selected column instead."""

from __future__ import annotations

from django.db.backends.postgresql import base, features

from vault.company_keys import is_merchant_owned


class DatabaseFeatures(features.DatabaseFeatures):
    def allows_group_by_selected_pks_on_model(self, model) -> bool:
        return super().allows_group_by_selected_pks_on_model(model) and not is_merchant_owned(model)


class DatabaseWrapper(base.DatabaseWrapper):
    features_class = DatabaseFeatures

    def prepared_cursor(self):
        """A cursor that binds its parameters on the server (Django's own bind them into the text), so psycopg
        prepares a statement once this connection has run it `prepare_threshold` times: the server then neither
        parses nor plans it again (never behind pgbouncer in transaction mode, whose setting turns it off)."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            return self._prepare_cursor(base.ServerBindingCursor(self.connection))
