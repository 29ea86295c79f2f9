from django.apps import AppConfig


class ReportingConfig(AppConfig):
    name = "reporting"
    default_auto_field = "django.db.models.BigAutoField"
