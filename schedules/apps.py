from django.apps import AppConfig


class SchedulesConfig(AppConfig):
    name = "schedules"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from schedules.services import sandbox_day_schedules_run
        from transactions.sandbox.services import sandbox_day_opens

        sandbox_day_opens.connect(sandbox_day_schedules_run, dispatch_uid="schedules.sandbox_day")
