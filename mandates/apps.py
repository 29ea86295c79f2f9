from django.apps import AppConfig


class MandatesConfig(AppConfig):
    name = "mandates"
    default_auto_field = "django.db.models.BigAutoField"
