"""GET /reporting/transactions (SPEC 4.9): a page of projected rows as JSON, or every matching row as CSV."""

from __future__ import annotations

from django.db import connections
from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from reporting.cursors import request_digest
from reporting.filters import ReportFilterBackend
from reporting.openapi import REPORT_ROW, report_parameters
from reporting.projection import projection_for
from reporting.selectors import (
    report_copy_stream,
    report_page,
    report_queryset,
    report_sort,
    report_stream,
)
from reporting.services import LeasedStream, csv_export_lease_acquire
from vault.csv_export import CsvLineWriter, CSVRenderer
from vault.envelope import EnvelopeJSONRenderer
from vault.error_codes import ErrorCode
from vault.errors import ApiError
from vault.openapi import Paginated, error
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
        description="The company's transactions, except the micro-entries of account validations (their amounts are "
        "the payer's secret, CONTRACT 12): they are in no page, CSV, filter or count (`totalRows` included).",
        parameters=report_parameters(),
        responses={
            (200, "application/json"): Paginated(REPORT_ROW, name="ReportRow"),
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description="format=csv (or Accept: text/csv): every matching row, flattened."
            ),
            429: error("Too many CSV exports of this company at once; retry after Retry-After seconds."),
        },
    )
    def get(self, request):
        params = request.query_params
        wants_csv = isinstance(request.accepted_renderer, CSVRenderer)  # format=csv, or Accept: text/csv
        cursor = params.get("cursor") or None
        page, page_size = (0, 0) if wants_csv else page_params(params, page_required=cursor is None)
        exact_count = _exact_count(params.get("count"))
        projection = projection_for(params.get("columns"))
        sort = report_sort(sort=params.get("sort"), direction=params.get("sortDir"))
        ordering = sort.ordering
        company = request.company
        filtered = report_queryset(company=company)
        for backend in self.filter_backends:
            filtered = backend().filter_queryset(request, filtered, self)
        if wants_csv:
            return _csv_response(company=company, filtered=filtered, projection=projection, ordering=ordering)
        result = report_page(
            company=company,
            filtered=filtered,
            filtered_any=request.reporting_filtered,
            projection=projection,
            sort=sort,
            page=page,
            page_size=page_size,
            cursor=cursor,
            digest=request_digest(params, sort),
            exact_count=exact_count,
        )
        body = paginated_body(
            result.rows,
            page=None if cursor and "page" not in params else page,
            page_size=page_size,
            total_filtered=result.total_filtered,
            total=result.total,
            extra={
                "totalFilteredRowsIsLowerBound": result.total_filtered_is_lower_bound,
                "nextCursor": result.next_cursor,
            },
        )
        return Response(body)


def _exact_count(raw: str | None) -> bool:
    if raw in (None, ""):
        return False
    if raw != "exact":
        raise ApiError("count must be exact", field="count", code=ErrorCode.INVALID)
    return True


CSV_WRITE_BYTES = 64 * 1024


def _csv_response(*, company, filtered, projection, ordering) -> StreamingHttpResponse:
    # Connect before the 200 goes out: an unreachable replica is a 503 (vault.errors), not a truncated download
    # (and before taking an export lease, which a 503 would leave held until it lapses).
    connections[filtered.db].ensure_connection()
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
