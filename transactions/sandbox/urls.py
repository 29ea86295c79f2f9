"""Sandbox routes; names are the keys of accounts.actions.ROUTE_ACTIONS."""

from __future__ import annotations

from django.urls import path

from transactions.sandbox.views import (
    SandboxClockAdvanceView,
    SandboxNoticeOfChangeView,
    SandboxReturnView,
    SandboxRiskResetView,
)

urlpatterns = [
    path(
        "sandbox/transactions/<uuid:transaction_uuid>/return",
        SandboxReturnView.as_view(),
        name="sandbox-transaction-return",
    ),
    path(
        "sandbox/transactions/<uuid:transaction_uuid>/notice-of-change",
        SandboxNoticeOfChangeView.as_view(),
        name="sandbox-transaction-notice-of-change",
    ),
    path("sandbox/clock/advance", SandboxClockAdvanceView.as_view(), name="sandbox-clock-advance"),
    path("sandbox/risk/reset", SandboxRiskResetView.as_view(), name="sandbox-risk-reset"),
]
