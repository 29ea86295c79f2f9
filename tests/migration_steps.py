"""Tests of a data migration: move the schema to a chosen migration with rows in it, then forward, and back to the
latest afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate to `targets`; the models as the tables now stand, every app included."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)._create_project_state(with_applied_migrations=True).apps


@contextmanager
def latest_migrations_after() -> Iterator[None]:
    """Whatever the test migrated to, the schema is back at the latest migrations when it ends."""
    leaf = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        yield
    finally:
        migrate(leaf)
