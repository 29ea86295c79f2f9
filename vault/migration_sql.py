"""Raw SQL that differs by database vendor (triggers are written once for PostgreSQL and once for SQLite)."""

from __future__ import annotations

from django.db import migrations


def run_sql_by_vendor(forward: dict[str, list[str]], backward: dict[str, list[str]]) -> migrations.RunPython:
    """A migration operation running the statements listed for the connection's vendor (none for others)."""

    def runner(statements_by_vendor: dict[str, list[str]]):
        def run(apps, schema_editor):
            for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
                schema_editor.execute(statement)

        return run

    return migrations.RunPython(runner(forward), runner(backward), elidable=False)
