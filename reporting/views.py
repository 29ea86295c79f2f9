"""GET /reporting/transactions (SPEC 4.9): a page of projected rows as JSON, or every matching row as CSV."""

from __future__ import annotations

from uuid import UUID

from django.conf import settings
from django.db import connections
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from reporting.exports import report_export_file
from reporting.openapi import REPORT_ROW, report_parameters
from reporting.page import report_page
from reporting.query import ReportQuery
from reporting.records import export_record
from reporting.selectors import report_export_get
from reporting.services import LeasedStream, csv_export_lease_acquire, report_export_create
from reporting.stream import report_csv_chunks, report_csv_exceeds
from vault.csv_export import CsvOrJsonView, CSVRenderer
from vault.envelope import EnvelopeJSONRenderer
from vault.error_codes import ErrorCode
from vault.errors import Conflict
from vault.openapi import ListKind, Paginated, error
from vault.pagination import paginated_body
from vault.serializers import body_refuse

CSV_CONTENT_TYPE = "text/csv; charset=utf-8"
REPORT_LIST = ListKind("ReportListMeta", cursor=True, lower_bound=True)


class TransactionReportView(CsvOrJsonView):
    @extend_schema(
        summary="Report on transactions: filter, choose columns, sort, page or export CSV",
        description="The company's transactions, except the micro-entries of account validations (their amounts are "
        "the payer's secret): they are in no page, CSV, filter or count (`totalRows` included).",
        parameters=report_parameters(),
        responses={
            (200, "application/json"): Paginated(REPORT_ROW, name="ReportRow", kind=REPORT_LIST),
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="format=csv (or Accept: text/csv): every matching row, flattened."
            ),
            409: error(
                "export_too_large: more than CSV_EXPORT_SYNC_MAX_ROWS (default 100,000) rows match a CSV export; "
                "POST /reporting/exports with the same parameters makes it in the background."
            ),
            429: error(
                "Too many CSV exports of this company (CSV_EXPORTS_PER_COMPANY, 2) or of the whole service "
                "(CSV_EXPORTS_SERVICE_WIDE, 4) at once; retry after Retry-After seconds."
            ),
        },
    )
    def get(self, request):
        if self.wants_csv(request):  # format=csv, or Accept: text/csv
            return _csv_response(ReportQuery.for_csv(company=request.company, params=request.query_params))
        query = ReportQuery.for_page(company=request.company, params=request.query_params)
        result = report_page(query)
        body = paginated_body(
            result.rows,
            page=query.page_shown,
            page_size=query.page_size,
            total_filtered=result.total_filtered,
            total=result.total,
            extra={
                "totalFilteredRowsIsLowerBound": result.total_filtered_is_lower_bound,
                "nextCursor": result.next_cursor,
            },
        )
        return Response(body)


class TransactionCsvExportView(TransactionReportView):
    """GET /reporting/transactions/csv: the same report as CSV, whatever the Accept header, as its own operation so
    that generated clients read it as text (the JSON operation's client parses JSON)."""

    renderer_classes = [CSVRenderer]

    def perform_content_negotiation(self, request, force=False):
        renderer = CSVRenderer()
        return renderer, renderer.media_type

    @extend_schema(
        operation_id="reporting_transactions_csv_get",
        summary="Export transactions as CSV",
        description=(
            "Every row matching the filters, with the same `columns` and `sort` as the JSON report, streamed as "
            "CSV (no paging: no `page`, `pageSize` or `cursor`). The same as `GET /reporting/transactions?format=csv`."
        ),
        parameters=report_parameters(leave_out=("page", "pageSize", "cursor", "count", "format")),
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="A header row, then one row per match."),
            429: error("Too many CSV exports of this company at once; retry after Retry-After seconds."),
        },
    )
    def get(self, request):
        return super().get(request)


def _csv_response(query: ReportQuery) -> StreamingHttpResponse:
    # Connect before the 200 goes out: an unreachable replica is a 503 (vault.errors), not a truncated download
    # (and before taking an export lease, which a 503 would leave held until it lapses).
    connections[query.database].ensure_connection()
    limit = settings.CSV_EXPORT_SYNC_MAX_ROWS
    if report_csv_exceeds(query, limit):
        raise Conflict(
            f"more than {limit} rows match: POST /reporting/exports with the same parameters makes the file in the "
            "background",
            code=ErrorCode.EXPORT_TOO_LARGE,
            data={"exports": "/reporting/exports"},
        )
    lease = csv_export_lease_acquire(company=query.company)
    response = StreamingHttpResponse(LeasedStream(lease, report_csv_chunks(query)), content_type=CSV_CONTENT_TYPE)
    response["Content-Disposition"] = 'attachment; filename="transactions.csv"'
    return response


class ExportOutput(serializers.Serializer):
    uuid = serializers.UUIDField()
    status = serializers.ChoiceField(
        choices=["queued", "running", "succeeded", "failed", "expired"],
        help_text="expired: succeeded, and the file's download time (CSV_EXPORT_FILE_HOURS, 1 h) has passed.",
    )
    query = serializers.CharField(help_text="The reporting parameters the export was made with.")
    rowCount = serializers.IntegerField(allow_null=True)
    createdAt = serializers.DateTimeField()
    startedAt = serializers.DateTimeField(allow_null=True)
    finishedAt = serializers.DateTimeField(allow_null=True)
    expiresAt = serializers.DateTimeField(allow_null=True)
    downloadUrl = serializers.CharField(
        allow_null=True, help_text="When succeeded and not expired: GET it with the same credentials."
    )
    failureReason = serializers.CharField(allow_null=True)


class ExportListView(APIView):
    def perform_content_negotiation(self, request, force=False):
        # `format` (csv or json) is a reporting parameter here, not a choice of this answer's form: always JSON.
        return super().perform_content_negotiation(request, force=True)

    @extend_schema(
        operation_id="reporting_export_create",
        summary="Make a CSV export in the background",
        description="Takes the parameters of GET /reporting/transactions (filters, columns, sort, sortDir) in the "
        "query string, checks them, and queues the export: 202 with its uuid. Poll GET /reporting/exports/{uuid}; "
        "when it has succeeded, download the file from downloadUrl (same credentials) within the hour. For "
        "exports above CSV_EXPORT_SYNC_MAX_ROWS rows, which the streamed CSV refuses (409 export_too_large).",
        parameters=report_parameters(),
        request=None,
        responses={202: ExportOutput, 400: error("A bad filter, column or sort, as on GET /reporting/transactions.")},
    )
    def post(self, request):
        body_refuse(request, "This route takes no body: the export's parameters go in the query string.")
        query = ReportQuery.for_export(company=request.company, params=request.query_params)
        export = report_export_create(query=query)
        return Response(export_record(export), status=202)


class ExportDetailView(APIView):
    @extend_schema(operation_id="reporting_export_get", responses={200: ExportOutput})
    def get(self, request, export_uuid: UUID):
        return Response(export_record(report_export_get(company=request.company, export_uuid=export_uuid)))


class ExportDownloadView(APIView):
    renderer_classes = [EnvelopeJSONRenderer, CSVRenderer]

    @extend_schema(
        operation_id="reporting_export_download",
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="The export's CSV file."),
            409: error("export_not_ready: the export has not succeeded (yet)."),
            410: error("export_expired: the file's download time has passed; make a new export."),
            429: error("Too many CSV exports or downloads at once; retry after Retry-After seconds."),
        },
    )
    def get(self, request, export_uuid: UUID):
        export = report_export_get(company=request.company, export_uuid=export_uuid)
        chunks = report_export_file(export=export)
        lease = csv_export_lease_acquire(company=request.company)
        response = StreamingHttpResponse(LeasedStream(lease, chunks), content_type=CSV_CONTENT_TYPE)
        response["Content-Disposition"] = f'attachment; filename="transactions-{export.uuid}.csv"'
        return response
