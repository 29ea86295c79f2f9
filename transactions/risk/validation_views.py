"""Account validation endpoints (CONTRACT 11): start a prenote or micro-deposits, confirm micro-deposit amounts."""

from __future__ import annotations

from uuid import UUID

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from customers.selectors import customer_get
from idempotency.services import IDEMPOTENCY_CONFLICT, IDEMPOTENCY_PARAMETER, idempotent_response
from payments.selectors import payment_method_get
from payments.serializers import PaymentMethodOutput
from transactions.models import AccountValidation
from transactions.risk.account_validation import (
    MICRODEPOSIT_MAX_CENTS,
    ValidationStarted,
    account_validation_start,
    microdeposits_confirm,
)
from transactions.state import Actor
from vault.openapi import error
from vault.serializers import StrictChoiceField, StrictIntegerField, StrictSerializer


class ValidationStartInput(StrictSerializer):
    method = StrictChoiceField(choices=AccountValidation.Kind.choices)


class ValidationConfirmInput(StrictSerializer):
    amounts = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=MICRODEPOSIT_MAX_CENTS), min_length=2, max_length=2
    )


def _method(request, customer_uuid: UUID, payment_method_uuid: UUID):
    customer = customer_get(company=request.company, customer_uuid=customer_uuid)
    method = payment_method_get(company=request.company, customer=customer, payment_method_uuid=payment_method_uuid)
    return customer, method


class ValidationStartedOutput(PaymentMethodOutput):
    testAmounts = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="Sandbox companies only: the two micro-deposit amounts in cents, so a test "
        "integration can confirm them. Never present for a live company.",
    )


def _started_record(started: ValidationStarted) -> dict:
    record = PaymentMethodOutput(started.method).data
    return record if started.test_amounts is None else {**record, "testAmounts": started.test_amounts}


class PaymentMethodValidateView(APIView):
    @extend_schema(
        operation_id="payment_method_validate",
        request=ValidationStartInput,
        responses={
            202: ValidationStartedOutput,
            409: error(
                "payment_method_blocked: the method is blocked; validation_pending: a validation of it is already "
                "pending; validation_attempts_exhausted: micro-deposits were started twice in the last 30 days; or "
                "(errors[0].field Idempotency-Key) " + IDEMPOTENCY_CONFLICT
            ),
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        description="Queue a prenote or two micro-deposits (and their offsetting debit) for the next file. The "
        "micro-deposit amounts are never shown to a live merchant (the entries' records show `amount: null`, reporting "
        "leaves them out): the payer reads them on the bank statement. Micro-deposits at most twice per 30 days per "
        "method; a prenote any time.",
    )
    def post(self, request, customer_uuid: UUID, payment_method_uuid: UUID):
        body = ValidationStartInput(data=request.data)
        body.is_valid(raise_exception=True)
        customer, method = _method(request, customer_uuid, payment_method_uuid)
        return idempotent_response(
            request,
            create=lambda: _started_record(
                account_validation_start(
                    company=request.company,
                    customer=customer,
                    payment_method=method,
                    kind=body.validated_data["method"],
                    actor=Actor.of_request(request),
                    now=timezone.now(),
                )
            ),
            status_code=202,
        )


class PaymentMethodValidateConfirmView(APIView):
    @extend_schema(
        operation_id="payment_method_validate_confirm",
        request=ValidationConfirmInput,
        responses={
            200: PaymentMethodOutput,
            400: error("amounts_mismatch: the amounts are wrong (the message says how many attempts are left)."),
            409: error(
                "no_validation_pending: no micro-deposit validation is pending for the method; validation_expired: "
                "it has expired."
            ),
        },
        description="The two micro-deposit amounts in cents: 3 attempts, within 10 days; the third wrong answer "
        "fails the validation (`validationStatus: failed`).",
    )
    def post(self, request, customer_uuid: UUID, payment_method_uuid: UUID):
        body = ValidationConfirmInput(data=request.data)
        body.is_valid(raise_exception=True)
        customer, method = _method(request, customer_uuid, payment_method_uuid)
        result = microdeposits_confirm(
            company=request.company,
            customer=customer,
            payment_method=method,
            amounts=body.validated_data["amounts"],
            actor=Actor.of_request(request),
            now=timezone.now(),
        )
        if result.error is not None:
            raise result.error  # after the commit: a wrong answer still uses up an attempt
        return Response(PaymentMethodOutput(result.method).data)
