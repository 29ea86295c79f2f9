from __future__ import annotations

from django.urls import path

from reporting.views import (
    ExportDetailView,
    ExportDownloadView,
    ExportListView,
    TransactionCsvExportView,
    TransactionReportView,
)

urlpatterns = [
    path("reporting/transactions", TransactionReportView.as_view(), name="reporting-transactions"),
    path("reporting/transactions/csv", TransactionCsvExportView.as_view(), name="reporting-transactions-csv"),
    path("reporting/exports", ExportListView.as_view(), name="reporting-export-list"),
    path("reporting/exports/<uuid:export_uuid>", ExportDetailView.as_view(), name="reporting-export-detail"),
    path(
        "reporting/exports/<uuid:export_uuid>/download", ExportDownloadView.as_view(), name="reporting-export-download"
    ),
]
