"""Schedule endpoints (CONTRACT 14): POST/GET /schedules, GET /schedules/{uuid} with its next 12 dates, and
pause, resume, cancel."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from customers.selectors import customer_get
from idempotency.services import IDEMPOTENCY_CONFLICT, IDEMPOTENCY_PARAMETER, idempotent_response
from mandates.errors import MANDATE_FIELD
from mandates.selectors import mandate_get
from payments.selectors import payment_method_get
from schedules.models import Schedule
from schedules.records import schedule_record
from schedules.selectors import schedule_get, schedule_list
from schedules.services import ScheduleTerms, schedule_create, schedule_move
from transactions.models import Purpose
from transactions.rules import MAX_AMOUNT_CENTS
from vault.openapi import Paginated, error
from vault.pagination import page_params, paginated_body
from vault.serializers import (
    StrictChoiceField,
    StrictDateField,
    StrictIntegerField,
    StrictSerializer,
    StrictUUIDField,
    body_refuse,
)


class ScheduleCreateInput(StrictSerializer):
    customerUuid = StrictUUIDField()
    paymentMethodUuid = StrictUUIDField()
    mandateUuid = StrictUUIDField(help_text="A recurring, active mandate of this customer and method.")
    amount = StrictIntegerField(min_value=1, max_value=MAX_AMOUNT_CENTS, help_text="Cents, each debit.")
    interval = StrictChoiceField(choices=Schedule.Interval.choices)
    dayOfMonth = StrictIntegerField(required=False, min_value=1, max_value=31, help_text="Monthly only.")
    startDate = StrictDateField(help_text="The first date (YYYY-MM-DD), not in the past.")
    endDate = StrictDateField(required=False, help_text="No date after it; or send count.")
    count = StrictIntegerField(required=False, min_value=1, max_value=1000, help_text="How many debits in all.")
    retryPolicy = StrictChoiceField(
        choices=[("none", "none")],
        required=False,
        allow_null=True,
        help_text='"none": its debits are never re-presented automatically, whatever the company\'s retry policy.',
    )
    purpose = StrictChoiceField(
        choices=Purpose.choices,
        required=False,
        help_text="What each debit pays for, passed to it (goods: a WEB debit's description is PURCHASE).",
    )


class ScheduleOutput(serializers.Serializer):
    uuid = serializers.UUIDField()
    customerUuid = serializers.UUIDField()
    paymentMethodUuid = serializers.UUIDField()
    mandateUuid = serializers.UUIDField()
    amount = serializers.IntegerField()
    interval = serializers.ChoiceField(choices=Schedule.Interval.choices)
    dayOfMonth = serializers.IntegerField(allow_null=True)
    startDate = serializers.DateField()
    endDate = serializers.DateField(allow_null=True)
    count = serializers.IntegerField(allow_null=True)
    retryPolicy = serializers.CharField(
        allow_null=True, help_text='"none" when its debits opted out of re-presentment.'
    )
    purpose = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=Schedule.Status.choices)
    statusReason = serializers.CharField(allow_null=True, help_text="Why it stopped or completed.")
    debitsMade = serializers.IntegerField()
    createdAt = serializers.DateTimeField()
    upcoming = serializers.ListField(
        child=serializers.DateField(), help_text="The next 12 debit dates, rolled forward to banking days."
    )


class ScheduleListView(APIView):
    @extend_schema(
        operation_id="schedule_create",
        request=ScheduleCreateInput,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={
            201: ScheduleOutput,
            404: error("Customer, payment method or mandate not found."),
            409: error(
                "outside_mandate_terms (a single mandate, another customer or method, an amount above maxAmount, "
                "an interval more frequent than the mandate's frequency), "
                "mandate_not_active, or " + IDEMPOTENCY_CONFLICT
            ),
        },
        examples=[
            OpenApiExample(
                "Monthly on the 1st, 12 times",
                request_only=True,
                value={
                    "customerUuid": "8d7e2c55-1f0a-4c8e-9a43-3b2f7d8e1a10",
                    "paymentMethodUuid": "4f1c8a43-5a43-4d2e-9b1c-2b7d3e9f0a11",
                    "mandateUuid": "2b9f4c1e-7d6a-4e8b-b1c2-3d4e5f6a7b8c",
                    "amount": 4900,
                    "interval": "monthly",
                    "dayOfMonth": 1,
                    "startDate": "2027-01-01",
                    "count": 12,
                },
            )
        ],
    )
    def post(self, request):
        body = ScheduleCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        customer = customer_get(company=request.company, customer_uuid=data["customerUuid"])
        method = payment_method_get(
            company=request.company, customer=customer, payment_method_uuid=data["paymentMethodUuid"]
        )
        mandate = mandate_get(company=request.company, mandate_uuid=data["mandateUuid"], field=MANDATE_FIELD)
        terms = ScheduleTerms(
            amount=data["amount"],
            interval=data["interval"],
            start_date=data["startDate"],
            day_of_month=data.get("dayOfMonth"),
            end_date=data.get("endDate"),
            count=data.get("count"),
            retry_policy=data.get("retryPolicy"),
            purpose=data.get("purpose"),
        )

        def create() -> dict:
            schedule = schedule_create(
                company=request.company,
                customer=customer,
                payment_method=method,
                mandate=mandate,
                terms=terms,
                now=timezone.now(),
            )
            return schedule_record(schedule)

        return idempotent_response(request, create=create)

    @extend_schema(
        operation_id="schedule_list",
        parameters=[
            OpenApiParameter("page", int, required=False, description="Zero-based page (default 0)."),
            OpenApiParameter("pageSize", int, required=False, description="Rows per page, 1..1000 (default 50)."),
            OpenApiParameter("customerUuid", str, required=False),
            OpenApiParameter("status", str, required=False, enum=Schedule.Status.values),
        ],
        responses={200: Paginated(ScheduleOutput)},
    )
    def get(self, request):
        page, page_size = page_params(request.query_params, required=False)
        filters = request.query_params
        status = filters.get("status")
        if status and status not in Schedule.Status.values:
            raise serializers.ValidationError({"status": [f"Must be one of {', '.join(Schedule.Status.values)}."]})
        customer = filters.get("customerUuid")
        if customer:
            StrictUUIDField().run_validation(customer)
        matching = schedule_list(company=request.company, filters=filters)
        everyone = schedule_list(company=request.company)
        rows = [schedule_record(row) for row in matching[page * page_size : (page + 1) * page_size]]
        return Response(
            paginated_body(
                rows, page=page, page_size=page_size, total_filtered=matching.count(), total=everyone.count()
            )
        )


class ScheduleDetailView(APIView):
    @extend_schema(operation_id="schedule_get", responses={200: ScheduleOutput, 404: error("Schedule not found.")})
    def get(self, request, schedule_uuid):
        return Response(schedule_record(schedule_get(company=request.company, schedule_uuid=schedule_uuid)))


def _move_view(move: str) -> type[APIView]:
    class ScheduleMoveView(APIView):
        @extend_schema(
            operation_id=f"schedule_{move}",
            request=None,
            responses={
                200: ScheduleOutput,
                404: error("Schedule not found."),
                409: error("schedule_not_active: the schedule's status does not allow it."),
            },
        )
        def post(self, request, schedule_uuid):
            body_refuse(request)
            schedule = schedule_get(company=request.company, schedule_uuid=schedule_uuid)
            return Response(schedule_record(schedule_move(schedule=schedule, move=move)))

    ScheduleMoveView.__name__ = f"Schedule{move.title()}View"
    return ScheduleMoveView


SchedulePauseView, ScheduleResumeView, ScheduleCancelView = (_move_view(move) for move in ("pause", "resume", "cancel"))
