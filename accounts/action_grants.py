"""The data migration that gives a new action to the roles and action groups that should have it, and takes it back
when the migration is reversed. Every such migration is one call:

    operations = [actions_granted(["RefundTransaction"], holders_of="ReverseTransaction")]
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import migrations

# Who gets a new action when no older action says: the admin role and the live API-key action group.
DEFAULT_HOLDERS = {"Role": "admin", "ActionGroup": "live-api-key"}


def actions_granted(new_actions: list[str], *, holders_of: str | None = None) -> migrations.RunPython:
    """A RunPython adding `new_actions` to every role and action group that holds the action `holders_of` (an
    action split out of it: whoever could do it keeps what they could do), or, without `holders_of`, to the admin
    role and the live API-key group."""

    def rows(apps) -> Iterable:
        for model_name, default_name in DEFAULT_HOLDERS.items():
            model = apps.get_model("accounts", model_name)
            yield from (model.objects.all() if holders_of else model.objects.filter(name=default_name))

    def grant(apps, schema_editor):
        for row in rows(apps):
            if holders_of is None or holders_of in row.actions:
                row.actions = [*row.actions, *(action for action in new_actions if action not in row.actions)]
                row.save(update_fields=["actions"])

    def revoke(apps, schema_editor):
        for model_name in DEFAULT_HOLDERS:
            for row in apps.get_model("accounts", model_name).objects.all():
                row.actions = [action for action in row.actions if action not in new_actions]
                row.save(update_fields=["actions"])

    return migrations.RunPython(grant, revoke)
