from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Events and webhooks"

    def ready(self) -> None:
        from events import tasks  # noqa: F401  connects the worker's wake-up to events.wakeups.deliveries_due
