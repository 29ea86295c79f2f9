"""GET/PUT /settings/retry-policy (CONTRACT 15): the company's automatic re-presentment of R01/R09 returns."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from transactions.charges.retry_policy import retry_policy_get, retry_policy_put
from transactions.models import RetrySchedule
from transactions.models.retries import MAX_BANKING_DAYS, WEEKDAYS
from vault.openapi import error
from vault.serializers import StrictBooleanField, StrictChoiceField, StrictIntegerField, StrictSerializer

# What each schedule type takes besides `type`: the one truth the input check reads.
SCHEDULE_FIELDS: dict[str, frozenset[str]] = {
    RetrySchedule.AFTER_BANKING_DAYS: frozenset({"days"}),
    RetrySchedule.WEEKDAY: frozenset({"weekday"}),
    RetrySchedule.DAYS_OF_MONTH: frozenset({"days"}),
    RetrySchedule.LAST_BANKING_DAY_OF_MONTH: frozenset(),
}


class ScheduleInput(StrictSerializer):
    type = StrictChoiceField(choices=RetrySchedule.choices)
    days = serializers.JSONField(
        required=False,
        help_text=f"after_banking_days: an integer 1 to {MAX_BANKING_DAYS}; days_of_month: a list of 1 to 4 days, 1 to "
        "31 (a day past the month's end is its last day; each rolls to the next banking day).",
    )
    weekday = StrictChoiceField(choices=[(day, day) for day in WEEKDAYS], required=False, help_text="weekday only.")

    def validate(self, attrs):
        kind = attrs["type"]
        wanted = SCHEDULE_FIELDS[kind]
        extra = sorted(set(attrs) - {"type"} - wanted)
        if extra:
            raise serializers.ValidationError({name: f"Not taken by a {kind} schedule." for name in extra})
        missing = sorted(wanted - set(attrs))
        if missing:
            raise serializers.ValidationError({name: f"Required by a {kind} schedule." for name in missing})
        if kind == RetrySchedule.AFTER_BANKING_DAYS:
            days = attrs["days"]
            if type(days) is not int or not 1 <= days <= MAX_BANKING_DAYS:
                raise serializers.ValidationError({"days": f"An integer from 1 to {MAX_BANKING_DAYS}."})
        elif kind == RetrySchedule.DAYS_OF_MONTH:
            days = attrs["days"]
            plain = type(days) is list and 1 <= len(days) <= 4
            if not plain or not all(type(day) is int and 1 <= day <= 31 for day in days) or len(set(days)) < len(days):
                raise serializers.ValidationError({"days": "A list of 1 to 4 different days of the month, 1 to 31."})
        return attrs


class RetryPolicyInput(StrictSerializer):
    enabled = StrictBooleanField()
    attempts = StrictIntegerField(
        min_value=1, max_value=2, required=False, help_text="Automatic presentments after the first (default 2)."
    )
    schedule = ScheduleInput()


class RetryPolicyOutput(serializers.Serializer):
    enabled = serializers.BooleanField()
    attempts = serializers.IntegerField()
    schedule = serializers.DictField(allow_null=True, help_text="As sent; null while no policy was ever set.")


class RetryPolicyView(APIView):
    @extend_schema(
        responses={200: RetryPolicyOutput},
        description="The company's retry policy; off (`enabled: false`, `schedule: null`) until one is set.",
    )
    def get(self, request):
        return Response(retry_policy_get(company=request.company))

    @extend_schema(
        request=RetryPolicyInput,
        responses={200: RetryPolicyOutput, 400: error("A field missing or out of range; errors[0].field names it.")},
        description="Replace the retry policy. When it is on, a debit returned R01 or R09 is re-presented on the "
        "schedule's next day (after N banking days, a weekday, days of the month, or the month's last banking "
        "day) by `run_retries`, exactly as POST /transactions/{uuid}/retry would (at most 2 re-presentments in all, "
        "within 180 days of the original's settlement date; a day past day 180 is skipped). A charge that says "
        '`"retryPolicy": "none"` is never re-presented automatically.',
    )
    def put(self, request):
        serializer = RetryPolicyInput(data=request.data)
        serializer.is_valid(raise_exception=True)
        body = serializer.validated_data
        return Response(
            retry_policy_put(
                company=request.company,
                enabled=body["enabled"],
                attempts=body.get("attempts", 2),
                schedule=body["schedule"],
                at=timezone.now(),
            )
        )
