"""Tests of a data migration: move the schema to a chosen migration with rows in it, then forward, and back to the
latest afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate to `targets`; the models as the tables now stand, every app included."""
    return MigrationExecutor(connection).migrate(targets).apps


class _RolledBack(Exception):
    pass


@contextmanager
def latest_migrations_after() -> Iterator[None]:
    """Whatever the test migrated to, the schema is back at the latest migrations when it ends. PostgreSQL and SQLite
    change their schema inside a transaction: the test runs in one that is rolled back, schema, rows and migration
    records alike (migrating forward again would re-render every model's state, 3 to 5 s a test).

    Inside that one transaction, the foreign keys are checked as each statement ends, not at a commit that never
    comes: PostgreSQL refuses to alter a table with checks still pending, and a migration updating rows this
    transaction inserted leaves checks pending (between a real deployment's transactions there are none). SQLite's
    schema editor needs its foreign-key enforcement off before the transaction begins (SQLite cannot switch it
    inside one); the editor checks the keys itself as each migration ends."""
    enforcement_off = connection.disable_constraint_checking()
    try:
        with transaction.atomic():
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            yield
            raise _RolledBack
    except _RolledBack:
        pass
    finally:
        if enforcement_off:
            connection.enable_constraint_checking()
