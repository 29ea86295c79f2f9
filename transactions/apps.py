from django.apps import AppConfig


class TransactionsConfig(AppConfig):
    name = "transactions"
    default_auto_field = "django.db.models.BigAutoField"
