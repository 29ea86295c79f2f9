from __future__ import annotations

from django.urls import path

from reporting.views import TransactionReportView

urlpatterns = [
    path("reporting/transactions", TransactionReportView.as_view(), name="reporting-transactions"),
]
