from __future__ import annotations

from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate


def _staff_groups_sync(sender, apps=None, plan=None, **kwargs) -> None:
    if not plan:  # nothing migrated (a no-op migrate, a test's flush): the groups are as the last migrate left them
        return
    from backoffice.groups import staff_groups_sync

    staff_groups_sync(apps, missing_ok=True)


class BackofficeConfig(AppConfig):
    """The support and risk staff's admin: its groups, its branding, the staff-user command."""

    name = "backoffice"
    verbose_name = "Back office"

    def ready(self) -> None:
        # After every migrate the groups see every model of their apps, also one a later migration of another app
        # adds (a migration here cannot depend on migrations not written yet): so a fresh database's first admin
        # session, and a release's new tables, need no create_staff_user to show up. Sent for auth, as post_migrate
        # is only for apps with models (backoffice has none); staff_groups_sync makes every app's permissions first.
        auth = apps.get_app_config("auth")
        post_migrate.connect(_staff_groups_sync, sender=auth, dispatch_uid="backoffice.staff_groups_sync")
