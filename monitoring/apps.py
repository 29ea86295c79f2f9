from __future__ import annotations

from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    """What an operator's tools read: GET /health for load balancers and probes, /metrics for Prometheus."""

    name = "monitoring"
