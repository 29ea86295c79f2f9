"""Saved bank account endpoints (SPEC 4.2, 4.3, 4.5, 4.6; CONTRACT 4, 5)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from customers.selectors import customer_get
from idempotency.services import IDEMPOTENCY_CONFLICT, IDEMPOTENCY_PARAMETER, idempotent_response
from payments.models import PaymentMethod
from payments.selectors import payment_method_get, payment_method_list
from payments.serializers import PaymentMethodCreatedOutput, PaymentMethodOutput
from payments.services import payment_method_create, payment_method_delete, payment_method_set_default
from vault.openapi import Paginated, error
from vault.pagination import whole_list_body
from vault.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictSerializer,
    StrictUUIDField,
    body_refuse,
)


class PaymentMethodCreateInput(StrictSerializer):
    # Number formats are checked by the service, whose messages never repeat the value.
    customerUuid = StrictUUIDField(error_messages={"type": "Must be a string."})
    type = StrictChoiceField(choices=PaymentMethod.Type.choices)
    accountType = StrictChoiceField(choices=PaymentMethod.AccountType.choices)
    accountNumber = StrictCharField(max_length=17)
    routingNumber = StrictCharField(max_length=9)
    nickname = StrictCharField(max_length=100, required=False, allow_blank=True)
    isDefault = StrictBooleanField(required=False, default=False)


class PaymentMethodCreateView(APIView):
    @extend_schema(
        operation_id="payment_method_create",
        request=PaymentMethodCreateInput,
        examples=[
            OpenApiExample(
                "Checking account",
                request_only=True,
                value={
                    "customerUuid": "8d7e2c55-1f0a-4c8e-9a43-3b2f7d8e1a10",
                    "type": "bank",
                    "accountType": "Checking",
                    "accountNumber": "000123456789",
                    "routingNumber": "021000021",
                    "nickname": "Payroll",
                    "isDefault": True,
                },
            )
        ],
        responses={
            201: PaymentMethodCreatedOutput,
            404: error("Customer not found."),
            409: error(
                "The customer already has this account and routing number: errors[0].field is accountNumber and "
                "data is {paymentMethodUuid} of the existing method; or (errors[0].field Idempotency-Key) "
                + IDEMPOTENCY_CONFLICT
            ),
        },
        parameters=[IDEMPOTENCY_PARAMETER],
    )
    def post(self, request):
        body = PaymentMethodCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        customer = customer_get(company=request.company, customer_uuid=data["customerUuid"])
        return idempotent_response(
            request,
            create=lambda: PaymentMethodCreatedOutput(
                payment_method_create(
                    company=request.company,
                    customer=customer,
                    method_type=data["type"],
                    account_type=data["accountType"],
                    account_number=data["accountNumber"],
                    routing_number=data["routingNumber"],
                    nickname=data.get("nickname", ""),
                    is_default=data["isDefault"],
                )
            ).data,
        )


class PaymentMethodListView(APIView):
    @extend_schema(
        operation_id="payment_method_list",
        responses={200: Paginated(PaymentMethodOutput, data_key="paymentMethods")},
    )
    def get(self, request, customer_uuid):
        customer = customer_get(company=request.company, customer_uuid=customer_uuid)
        methods = payment_method_list(company=request.company, customer=customer)
        return Response(whole_list_body(PaymentMethodOutput(methods, many=True).data, data_key="paymentMethods"))


def _method(request, customer_uuid, payment_method_uuid):
    customer = customer_get(company=request.company, customer_uuid=customer_uuid)
    method = payment_method_get(company=request.company, customer=customer, payment_method_uuid=payment_method_uuid)
    return customer, method


class PaymentMethodDetailView(APIView):
    @extend_schema(operation_id="payment_method_get", responses={200: PaymentMethodOutput})
    def get(self, request, customer_uuid, payment_method_uuid):
        _customer, method = _method(request, customer_uuid, payment_method_uuid)
        return Response(PaymentMethodOutput(method).data)

    @extend_schema(operation_id="payment_method_delete", responses={204: None})
    def delete(self, request, customer_uuid, payment_method_uuid):
        customer, method = _method(request, customer_uuid, payment_method_uuid)
        payment_method_delete(company=request.company, customer=customer, payment_method=method)
        return Response(status=204)


class PaymentMethodSetDefaultView(APIView):
    @extend_schema(operation_id="payment_method_set_default", request=None, responses={200: PaymentMethodOutput})
    def post(self, request, customer_uuid, payment_method_uuid):
        body_refuse(request)
        customer, method = _method(request, customer_uuid, payment_method_uuid)
        method = payment_method_set_default(company=request.company, customer=customer, payment_method=method)
        return Response(PaymentMethodOutput(method).data)
