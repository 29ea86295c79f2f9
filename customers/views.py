"""Customer endpoints: POST/GET /customers, GET/PATCH /customers/{customerUuid} (SPEC 4.1, 4.4; CONTRACT 4)."""

from __future__ import annotations

from django.core.validators import EmailValidator, RegexValidator
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from customers.models import Customer
from customers.selectors import customer_get, customer_list
from customers.serializers import CustomerCreatedOutput, CustomerOutput
from customers.services import CUSTOMER_FIELDS, PHONE_PATTERN, customer_create, customer_update
from idempotency.services import IDEMPOTENCY_CONFLICT, IDEMPOTENCY_PARAMETER, idempotent_response
from vault.openapi import Paginated, error
from vault.pagination import page_params, paginated_body
from vault.records import texts_or_none
from vault.serializers import StrictCharField, StrictChoiceField, StrictSerializer


def _optional(max_length: int, *validators) -> StrictCharField:
    return StrictCharField(max_length=max_length, required=False, allow_blank=True, validators=list(validators))


_email = EmailValidator(message="Enter a valid email address.")
_phone = RegexValidator(PHONE_PATTERN, message="Phone must be 7 to 15 digits, optionally after a leading +.")


class CustomerCreateInput(StrictSerializer):
    firstName = _optional(100)
    lastName = _optional(100)
    companyName = _optional(255)
    email = _optional(254, _email)
    phone = _optional(16, _phone)
    accountHolderType = StrictChoiceField(choices=Customer.HolderType.choices, required=False)
    customerId = _optional(255)


class CustomerUpdateInput(CustomerCreateInput):
    status = StrictChoiceField(choices=Customer.Status.choices, required=False)


def _model_fields(validated: dict) -> dict:
    return {CUSTOMER_FIELDS[name]: value for name, value in validated.items()}


_LIST_PARAMS = [
    OpenApiParameter(name, str, required=False, description=description)
    for name, description in (
        ("page", "Zero-based page (default 0)."),
        ("pageSize", "Rows per page, 1..1000 (default 50)."),
        ("email", "Exact e-mail address, case-insensitive."),
        ("customerId", "Exact caller-side identifier."),
        ("status", "active or inactive."),
        ("name", "Case-insensitive substring of first, last or company name."),
    )
]


class CustomerListView(APIView):
    @extend_schema(
        operation_id="customer_create",
        request=CustomerCreateInput,
        responses={201: CustomerCreatedOutput, 409: error(IDEMPOTENCY_CONFLICT)},
        parameters=[IDEMPOTENCY_PARAMETER],
        examples=[
            OpenApiExample(
                "A person",
                request_only=True,
                value={
                    "firstName": "Ada",
                    "lastName": "Lovelace",
                    "email": "ada@example.com",
                    "phone": "+14155550100",
                },
            ),
            OpenApiExample(
                "An organization",
                request_only=True,
                value={"companyName": "Acme Corp", "accountHolderType": "organization", "customerId": "crm-42"},
            ),
        ],
    )
    def post(self, request):
        body = CustomerCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        fields = _model_fields(body.validated_data)

        def create() -> dict:
            data = CustomerCreatedOutput(customer_create(company=request.company, **fields)).data
            return texts_or_none(data)

        return idempotent_response(request, create=create)

    @extend_schema(operation_id="customer_list", parameters=_LIST_PARAMS, responses={200: Paginated(CustomerOutput)})
    def get(self, request):
        page, page_size = page_params(request.query_params, required=False)
        matching, everyone = customer_list(company=request.company, filters=request.query_params)
        rows = CustomerOutput(matching[page * page_size : (page + 1) * page_size], many=True).data
        return Response(
            paginated_body(
                rows, page=page, page_size=page_size, total_filtered=matching.count(), total=everyone.count()
            )
        )


class CustomerDetailView(APIView):
    @extend_schema(operation_id="customer_get", responses={200: CustomerOutput})
    def get(self, request, customer_uuid):
        return Response(CustomerOutput(customer_get(company=request.company, customer_uuid=customer_uuid)).data)

    @extend_schema(operation_id="customer_update", request=CustomerUpdateInput, responses={200: CustomerOutput})
    def patch(self, request, customer_uuid):
        customer = customer_get(company=request.company, customer_uuid=customer_uuid)
        body = CustomerUpdateInput(data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        customer_update(customer=customer, changes=_model_fields(body.validated_data))
        customer = customer_get(company=request.company, customer_uuid=customer_uuid)
        return Response(CustomerOutput(customer).data, status=status.HTTP_200_OK)
