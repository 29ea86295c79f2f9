from django.apps import AppConfig


class PayoutsConfig(AppConfig):
    name = "payouts"
    default_auto_field = "django.db.models.BigAutoField"
