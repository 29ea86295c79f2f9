from __future__ import annotations

from django.apps import AppConfig


class BackofficeConfig(AppConfig):
    """The support and risk staff's admin: its groups, its branding, the staff-user command."""

    name = "backoffice"
    verbose_name = "Back office"
