from __future__ import annotations

from django.apps import AppConfig


class BankConfig(AppConfig):
    name = "bank"
    default_auto_field = "django.db.models.BigAutoField"
