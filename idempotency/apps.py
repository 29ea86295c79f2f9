from django.apps import AppConfig


class IdempotencyConfig(AppConfig):
    name = "idempotency"
    default_auto_field = "django.db.models.BigAutoField"
