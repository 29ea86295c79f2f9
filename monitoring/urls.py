from __future__ import annotations

from django.urls import path

from monitoring import views

urlpatterns = [
    path("health", views.health, name="health"),
    path("metrics", views.metrics, name="metrics"),
]
