"""Payout endpoints (CONTRACT 18): the payout account, `GET`/`PUT /settings/payout-account`."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from payments.models import PaymentMethod
from payouts.models import PayoutAccount
from payouts.records import payout_account_record
from payouts.selectors import Readiness, payout_account_get
from payouts.services import AccountDetails, payout_account_put
from transactions.state import Actor
from vault.openapi import error
from vault.serializers import StrictCharField, StrictChoiceField, StrictSerializer


class PayoutAccountInput(StrictSerializer):
    # Number formats are checked by the service, whose messages never repeat the value.
    routingNumber = StrictCharField(max_length=9)
    accountNumber = StrictCharField(max_length=17)
    accountType = StrictChoiceField(choices=PayoutAccount.AccountType.choices)
    holderName = StrictCharField(max_length=100, help_text="The name the account is held in.")
    holderType = StrictChoiceField(
        choices=PayoutAccount.HolderType.choices,
        required=False,
        default=PayoutAccount.HolderType.BUSINESS,
        help_text="business (default): payouts are CCD credits; consumer (a sole proprietor's own account): PPD.",
    )


READINESS = [Readiness.BLOCKED, Readiness.VALIDATION_FAILED, Readiness.VALIDATING, Readiness.COOLING_DOWN]


class PayoutAccountOutput(serializers.Serializer):
    uuid = serializers.UUIDField(help_text="This version of the account; a change makes a new one.")
    routingNumber = serializers.CharField()
    accountNumber = serializers.CharField(help_text="Masked: `****` and the last four digits.")
    lastFourDigits = serializers.CharField()
    accountType = serializers.ChoiceField(choices=PayoutAccount.AccountType.choices)
    holderName = serializers.CharField()
    holderType = serializers.ChoiceField(choices=PayoutAccount.HolderType.choices)
    status = serializers.ChoiceField(
        choices=[*READINESS, Readiness.READY],
        help_text="ready, or why no payout may go to it yet: validating (its prenote is out), cooling_down (changed "
        "less than 3 banking days ago), validation_failed (its prenote came back: set it again), blocked (a payout "
        "to it was returned R02, R03, R04, R16 or R20: change it).",
    )
    ready = serializers.BooleanField(help_text="true when a payout may go to it now.")
    validationStatus = serializers.ChoiceField(choices=PaymentMethod.ValidationStatus.choices)
    coolDownEndsAt = serializers.DateTimeField(allow_null=True, help_text="No payout to it before this moment.")
    blockedReason = serializers.CharField(allow_null=True)
    createdAt = serializers.DateTimeField()


EXAMPLE = {
    "routingNumber": "021000021",
    "accountNumber": "000123456789",
    "accountType": "Checking",
    "holderName": "Acme Widgets LLC",
}


class PayoutAccountView(APIView):
    @extend_schema(
        operation_id="payout_account_get",
        responses={200: PayoutAccountOutput, 404: error("No payout account is set.")},
        description="The company's payout account, masked, and whether a payout may go to it now.",
    )
    def get(self, request):
        return Response(payout_account_record(payout_account_get(company=request.company), at=timezone.now()))

    @extend_schema(
        operation_id="payout_account_put",
        request=PayoutAccountInput,
        responses={
            200: PayoutAccountOutput,
            400: error("A field missing or malformed; errors[0].field names it (the value is never repeated)."),
        },
        description="Set the company's own bank account, where payouts go. A new account is prenoted and usable once "
        "validated (3 banking days without a return); changing it also starts a cool-down of 3 banking days in which "
        "no payout goes out. Sends `payout_account.updated`. The same details again change nothing.",
        examples=[OpenApiExample("A business checking account", request_only=True, value=EXAMPLE)],
    )
    def put(self, request):
        body = PayoutAccountInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        now = timezone.now()
        details = AccountDetails(
            routing_number=data["routingNumber"],
            account_number=data["accountNumber"],
            account_type=data["accountType"],
            holder_name=data["holderName"],
            holder_type=data["holderType"],
        )
        account = payout_account_put(company=request.company, details=details, actor=Actor.of_request(request), now=now)
        return Response(payout_account_record(account, at=now))
