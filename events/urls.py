"""Webhook and event routes; names are the keys of accounts.actions.ROUTE_ACTIONS."""

from __future__ import annotations

from django.urls import path

from events.views import (
    EndpointDetailView,
    EndpointListView,
    EndpointReplayView,
    EndpointRotateSecretView,
    EventDetailView,
    EventListView,
)

urlpatterns = [
    path("webhooks/endpoints", EndpointListView.as_view(), name="webhook-endpoint-list"),
    path("webhooks/endpoints/<uuid:endpoint_uuid>", EndpointDetailView.as_view(), name="webhook-endpoint-detail"),
    path(
        "webhooks/endpoints/<uuid:endpoint_uuid>/rotate-secret",
        EndpointRotateSecretView.as_view(),
        name="webhook-endpoint-rotate-secret",
    ),
    path(
        "webhooks/endpoints/<uuid:endpoint_uuid>/replay", EndpointReplayView.as_view(), name="webhook-endpoint-replay"
    ),
    path("events", EventListView.as_view(), name="event-list"),
    path("events/<uuid:event_uuid>", EventDetailView.as_view(), name="event-detail"),
]
