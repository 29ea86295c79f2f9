"""Risk routes (CONTRACT 10): GET /risk/return-rates, GET /risk/report."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, datetime

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from transactions.risk import report
from transactions.risk import return_rates as rates
from transactions.selectors import company_clock_now
from vault.csv_export import CsvLineWriter, CsvOrJsonView
from vault.errors import ApiError, InvalidFilter

MONTH = re.compile(r"([0-9]{4})-(0[1-9]|1[0-2])")
# Dates a window can be computed around (60 days back, one day on) without leaving Python's calendar.
YEARS = range(1900, 9999)
COMMON_PARAMS = frozenset({"format", "entityUuid"})


class CategoryRateSerializer(serializers.Serializer):
    returns = serializers.IntegerField()
    rate = serializers.FloatField(
        help_text="returns / debits, unrounded. With no debits there is no rate: it reads 0 here (the admin shows "
        "n/a), so read it with `debits`."
    )
    threshold = serializers.FloatField()


class SecCodeRatesSerializer(serializers.Serializer):
    debits = serializers.IntegerField()
    unauthorized = CategoryRateSerializer()
    administrative = CategoryRateSerializer()
    overall = CategoryRateSerializer()


class ReturnRatesSerializer(serializers.Serializer):
    """The company's return rates against the Nacha thresholds (the selector builds the body; this documents it)."""

    schema_description = "The company's return rates against the Nacha thresholds."

    windowDays = serializers.IntegerField()
    asOf = serializers.DateField()
    debits = serializers.IntegerField()
    unauthorized = CategoryRateSerializer()
    administrative = CategoryRateSerializer()
    overall = CategoryRateSerializer()
    bySecCode = serializers.DictField(child=SecCodeRatesSerializer())


def _refuse_unknown(params, allowed: Iterable[str]) -> None:
    unknown = sorted(set(params) - COMMON_PARAMS - set(allowed))
    if unknown:
        raise InvalidFilter(f"unknown query parameter: {unknown[0]}", field=unknown[0])


def _period(params, *, now: datetime) -> rates.Period:
    if "month" in params and "asOf" in params:
        raise ApiError("give either month or asOf, not both", field="month")
    if "month" in params:
        match = MONTH.fullmatch(params["month"])
        if match is None or int(match.group(1)) not in YEARS:
            raise ApiError("month must be YYYY-MM", field="month")
        return rates.month_period(int(match.group(1)), int(match.group(2)))
    if "asOf" in params:
        try:
            as_of = date.fromisoformat(params["asOf"]) if len(params["asOf"]) == 10 else None
        except ValueError:
            as_of = None
        if as_of is None or as_of.year not in YEARS:
            raise ApiError("asOf must be a date YYYY-MM-DD", field="asOf")
        return rates.rolling_period(as_of)
    return rates.rolling_period(rates.today_eastern(now))


def _method(params) -> rates.RateMethod:
    try:
        return rates.RateMethod(params.get("method", rates.RateMethod.PERIOD.value))
    except ValueError:
        raise ApiError("method must be period or files", field="method") from None


def _csv(header: Iterable[str], rows: Iterable[Iterable], filename: str) -> HttpResponse:
    writer = CsvLineWriter()
    body = b"".join([writer.line(header), *(writer.line(row) for row in rows)])
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


FORMAT_PARAM = OpenApiParameter("format", str, enum=["json", "csv"])


class ReturnRatesView(CsvOrJsonView):
    @extend_schema(
        summary="Return rates of the company (unauthorized, administrative, overall)",
        parameters=[
            OpenApiParameter("asOf", OpenApiTypes.DATE, description="Last day of the rolling 60 days (Eastern)."),
            OpenApiParameter("month", str, description="YYYY-MM: a calendar month instead of the rolling window."),
            OpenApiParameter(
                "method", str, enum=["period", "files"], description="Nacha method 1 (period, default) or 2 (files)."
            ),
            FORMAT_PARAM,
        ],
        responses={200: ReturnRatesSerializer},
    )
    def get(self, request):
        params = request.query_params
        _refuse_unknown(params, ("asOf", "month", "method"))
        sheet = rates.return_rates(
            company=request.company,
            period=_period(params, now=company_clock_now(request.company)),
            method=_method(params),
        )
        if self.wants_csv(request):
            return _csv(rates.CSV_HEADER, sheet.csv_rows(), "return-rates.csv")
        return Response(sheet.as_json())


class RiskReportView(CsvOrJsonView):
    @extend_schema(
        summary="Evidence of the return-risk program: policy, thresholds, rates by month, alerts, actions, reviews",
        description="Also `fraudMonitoring`: the fraud rules in force (`rules`: WEB debit account validation, credit "
        "holds NEW), `flags` (`web_debits_without_validation`: WEB debits in the 60-day window under policy off) and "
        "`microEntries` (sent and returned in the window). Each review lists the rules it reviewed.",
        parameters=[FORMAT_PARAM],
        responses={200: OpenApiTypes.OBJECT},
    )
    def get(self, request):
        _refuse_unknown(request.query_params, ())
        body = report.risk_report(company=request.company, now=company_clock_now(request.company))
        if self.wants_csv(request):
            return _csv(report.CSV_HEADER, report.risk_report_rows(body), "risk-report.csv")
        return Response(body)
