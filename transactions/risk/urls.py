"""Risk routes; names are the keys of accounts.actions.ROUTE_ACTIONS."""

from __future__ import annotations

from django.urls import path

from transactions.risk.views import ReturnRatesView, RiskReportView

urlpatterns = [
    path("risk/return-rates", ReturnRatesView.as_view(), name="risk-return-rates"),
    path("risk/report", RiskReportView.as_view(), name="risk-report"),
]
