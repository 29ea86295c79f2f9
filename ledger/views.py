"""GET /balance (CONTRACT 17): a company's five accounts, now or at any past moment. Its postings are listed by the
reporting engine (GET /balance/transactions, reporting.listings)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ledger.models import USD
from ledger.selectors import balance_get
from vault.errors import ApiError, InvalidFilter
from vault.records import iso_utc

PARAMS = frozenset({"asOf", "entityUuid"})


class BalanceOutput(serializers.Serializer):
    currency = serializers.CharField(help_text="USD")
    incoming = serializers.IntegerField(help_text="Cents: debits sent to the bank, not yet settled.")
    pending = serializers.IntegerField(help_text="Cents: settled, not yet available (fundsAvailableAt).")
    available = serializers.IntegerField(help_text="Cents: what may be paid out; negative when returns took more.")
    reserved = serializers.IntegerField(help_text="Cents: held back by the company's reserve.")
    outgoing = serializers.IntegerField(help_text="Cents: credits and refunds taken from the balance, not yet settled.")
    asOf = serializers.DateTimeField(help_text="The moment the balances are of.")


def as_of_param(raw: str | None) -> datetime | None:
    """`asOf`: YYYY-MM-DDThh:mm:ssZ, or YYYY-MM-DD for the end of that UTC day."""
    if raw is None:
        return None
    try:
        if len(raw) == 10:
            day = datetime.strptime(raw, "%Y-%m-%d").replace(tzinfo=UTC)
            return datetime.combine(day.date() + timedelta(days=1), time(0), tzinfo=UTC) - timedelta(microseconds=1)
        return datetime.strptime(raw, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise ApiError("asOf must be YYYY-MM-DDThh:mm:ssZ or YYYY-MM-DD", field="asOf") from None


class BalanceView(APIView):
    @extend_schema(
        operation_id="balance_get",
        summary="The company's balances",
        description="The five accounts of the company's ledger in cents, now or (`asOf`) at any past moment, exactly: "
        "the sum of its postings made by then. How money moves between them: docs/ledger.md.",
        parameters=[
            OpenApiParameter(
                "asOf", str, description="YYYY-MM-DDThh:mm:ssZ, or YYYY-MM-DD for the end of that day (UTC)."
            )
        ],
        responses={200: BalanceOutput},
    )
    def get(self, request):
        unknown = sorted(set(request.query_params) - PARAMS)
        if unknown:
            raise InvalidFilter(f"unknown query parameter: {unknown[0]}", field=unknown[0])
        moment = as_of_param(request.query_params.get("asOf"))
        balances = balance_get(company=request.company, moment=moment)
        return Response({"currency": USD, **balances, "asOf": iso_utc(moment or timezone.now())})
