"""Django's PostgreSQL backend, aware of the company-scoped keys (transactions 0012, vault/company_keys.py).

A merchant-owned table's primary key is (id, company_id) in the database while Django's model says `id`. Django
collapses GROUP BY to a selected model's primary key on PostgreSQL (functional dependency), which PostgreSQL now
refuses for `id` alone; for those models it groups by every selected column instead."""

from __future__ import annotations

from functools import lru_cache

from django.db.backends.postgresql import base, features
from psycopg import _queries

from vault.company_keys import is_merchant_owned

# psycopg remembers how it rewrote a statement's %s placeholders only for statements of at most 50 parameters and
# 4,096 bytes (ORM statements of many rows would fill its cache): a charge's one write (its row, trail and event) has
# more, so psycopg split its text again on every charge, 0.23 ms of CPU. The prepared cursor's statements are the
# hot paths' own, a handful of texts, so their rewriting is remembered whatever their length. psycopg's own parser
# and query class (`_queries`, private: requirements.txt pins psycopg) do the work.
_rewritten = lru_cache(maxsize=256)(_queries._query2pg_nocache)


class _RememberedQuery(_queries.PostgresQuery):
    __slots__ = ()

    def convert(self, query, vars) -> None:
        if vars is None or not isinstance(query, str):
            super().convert(query, vars)
            return
        self.query, self._want_formats, self._order, self._parts = _rewritten(
            query.encode(self._encoding), self._encoding
        )
        self.dump(vars)


class PreparedCursor(base.ServerBindingCursor):
    _query_cls = _RememberedQuery


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
            return self._prepare_cursor(PreparedCursor(self.connection))
