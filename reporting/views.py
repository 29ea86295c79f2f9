"""GET /reporting/transactions (SPEC 4.9): a page of projected rows as JSON, or every matching row as CSV."""

from __future__ import annotations

from django.db import connections
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from reporting.filters import ReportFilterBackend
from reporting.projection import projection_for
from reporting.selectors import (
    report_copy_stream,
    report_ordering,
    report_page,
    report_queryset,
    report_stream,
)
from reporting.services import LeasedStream, csv_export_lease_acquire
from vault.csv_export import CsvLineWriter, CSVRenderer
from vault.envelope import EnvelopeJSONRenderer
from vault.error_codes import ErrorCode
from vault.errors import ApiError
from vault.pagination import page_params, paginated_body


class TransactionReportView(APIView):
    renderer_classes = [EnvelopeJSONRenderer, CSVRenderer]
    filter_backends = [ReportFilterBackend]

    def perform_content_negotiation(self, request, force=False):
        try:
            return super().perform_content_negotiation(request, force)
        except Http404:
            raise ApiError("format must be json or csv", field="format", code=ErrorCode.INVALID) from None

    @extend_schema(
        summary="Transaction reporting list (SPEC 4.9)",
        parameters=[
            OpenApiParameter("page", int, required=True, description="Zero-based page."),
            OpenApiParameter("pageSize", int, required=True, description="1..1000."),
            OpenApiParameter("columns", str, description="Comma-separated camelCase keys."),
            OpenApiParameter("sort", str, description="id or any filterable field; default id."),
            OpenApiParameter("sortDir", str, enum=["ASC", "DESC"]),
            OpenApiParameter("format", str, enum=["json", "csv"], description="csv streams every matching row."),
        ],
        description="Any other parameter is a filter `<field>[:<condition>]=<value>` (CONTRACT 7).",
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        params = request.query_params
        wants_csv = params.get("format") == "csv"
        page, page_size = (0, 0) if wants_csv else page_params(params)
        projection = projection_for(params.get("columns"))
        ordering = report_ordering(sort=params.get("sort"), direction=params.get("sortDir"))
        company = request.company
        filtered = report_queryset(company=company)
        for backend in self.filter_backends:
            filtered = backend().filter_queryset(request, filtered, self)
        if wants_csv:
            return _csv_response(company=company, filtered=filtered, projection=projection, ordering=ordering)
        rows, total_filtered, total = report_page(
            company=company,
            filtered=filtered,
            filtered_any=request.reporting_filtered,
            projection=projection,
            ordering=ordering,
            page=page,
            page_size=page_size,
        )
        return Response(
            paginated_body(rows, page=page, page_size=page_size, total_filtered=total_filtered, total=total)
        )


CSV_WRITE_BYTES = 64 * 1024


def _csv_response(*, company, filtered, projection, ordering) -> StreamingHttpResponse:
    lease = csv_export_lease_acquire(company=company)
    writer = CsvLineWriter()
    header = writer.line(projection.keys)
    if connections[filtered.db].vendor == "postgresql":
        pieces = report_copy_stream(company=company, filtered=filtered, projection=projection, ordering=ordering)
    else:
        rows = report_stream(company=company, filtered=filtered, projection=projection, ordering=ordering)
        pieces = (writer.line(row) for row in rows)
    response = StreamingHttpResponse(
        LeasedStream(lease, _chunked(header, pieces)), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = 'attachment; filename="transactions.csv"'
    return response


def _chunked(header: bytes, pieces):
    """Joins rows into ~64 KiB writes: one socket write per row would cost more than building the row."""
    buffer = [header]
    size = len(header)
    for piece in pieces:
        buffer.append(piece)
        size += len(piece)
        if size >= CSV_WRITE_BYTES:
            yield b"".join(buffer)
            buffer, size = [], 0
    yield b"".join(buffer)
