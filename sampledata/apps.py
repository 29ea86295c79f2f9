from django.apps import AppConfig


class SampledataConfig(AppConfig):
    """Realistic sample rows for the demo, the reporting benches and tests (`seed_transactions`); no models."""

    name = "sampledata"
    verbose_name = "Sample data"
