"""Charge endpoints: PUT /transactions, GET /transactions/{uuid}, POST /transactions/{uuid}/void."""

from __future__ import annotations

import json
import re
from datetime import datetime
from uuid import UUID

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from payments import numbers
from payments.models import PaymentMethod
from transactions.models import Method, Purpose, TransactionType
from transactions.records import transaction_event_record, transaction_record
from transactions.rules import ENTRY_DESCRIPTION_MAX, ENTRY_DESCRIPTION_PATTERN, MAX_AMOUNT_CENTS, METHOD_RULES
from transactions.selectors import transaction_events, transaction_get
from transactions.services import transaction_charge, transaction_void
from transactions.state import Actor
from vault import crypto
from vault.error_codes import ErrorCode
from vault.errors import ApiError
from vault.serializers import StrictCharField, StrictChoiceField, StrictIntegerField, StrictSerializer

PAYMENT_METHOD_NEEDS_CUSTOMER = "customerUuid is required when paymentMethodUuid is provided"
PAYMENT_DETAILS_REQUIRED = "paymentDetails is required for ACH, RCC and RTP, also when a saved method is charged"
IDEMPOTENCY_HEADER = "Idempotency-Key"
EXPIRATION = re.compile(r"(0[1-9]|1[0-2])/([0-9]{2})")


class StrictUUIDField(serializers.UUIDField):
    """A UUID that must arrive as a string (DRF's UUIDField would turn an integer into a UUID)."""

    default_error_messages = {"type": "Must be a UUID string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("type")
        return super().to_internal_value(data)


class StrictDateField(serializers.DateField):
    default_error_messages = {"type": "Must be a date string YYYY-MM-DD."}

    def __init__(self, **kwargs):
        super().__init__(input_formats=["%Y-%m-%d"], **kwargs)

    def to_internal_value(self, value):
        if not isinstance(value, str):
            self.fail("type")
        return super().to_internal_value(value)


class BankDetailsSerializer(StrictSerializer):
    name = StrictCharField(max_length=255)
    accountType = StrictChoiceField(choices=PaymentMethod.AccountType.choices)  # noqa: N815
    accountNumber = StrictCharField(min_length=4, max_length=17)  # noqa: N815
    routingNumber = StrictCharField(min_length=9, max_length=9)  # noqa: N815

    def validate_accountNumber(self, value: str) -> str:  # noqa: N802
        if not numbers.is_account_number(value):
            raise serializers.ValidationError("Must be 4 to 17 digits.")
        return value

    def validate_routingNumber(self, value: str) -> str:  # noqa: N802
        if not numbers.is_routing_number(value):
            raise serializers.ValidationError("Must be a 9-digit ABA routing number with a valid check digit.")
        return value

    def to_service(self) -> dict[str, str]:
        data = self.validated_data
        return {
            "name": data["name"],
            "account_type": data["accountType"],
            "account_number": data["accountNumber"],
            "routing_number": data["routingNumber"],
        }


class CardDetailsSerializer(StrictSerializer):
    name = StrictCharField(max_length=255)
    cardNumber = StrictCharField(min_length=12, max_length=19)  # noqa: N815
    expirationDate = StrictCharField(max_length=5)  # noqa: N815
    cvv = StrictCharField(min_length=3, max_length=4, required=False)

    def validate_cardNumber(self, value: str) -> str:  # noqa: N802
        if not numbers.is_card_number(value):
            raise serializers.ValidationError("Must be 12 to 19 digits with a valid Luhn check digit.")
        return value

    def validate_expirationDate(self, value: str) -> str:  # noqa: N802
        match = EXPIRATION.fullmatch(value)
        if not match:
            raise serializers.ValidationError("Must be MM/YY.")
        now: datetime = self.context.get("now") or timezone.now()
        if (2000 + int(match.group(2)), int(match.group(1))) < (now.year, now.month):
            raise serializers.ValidationError("The card has expired.")
        return value

    def validate_cvv(self, value: str) -> str:
        if not numbers.is_cvv(value):
            raise serializers.ValidationError("Must be 3 or 4 digits.")
        return value

    def to_service(self) -> dict[str, str]:
        data = self.validated_data  # cvv is checked above and deliberately not passed on: it is never stored
        return {"name": data["name"], "card_number": data["cardNumber"], "expiration_date": data["expirationDate"]}


class ChargeInputSerializer(StrictSerializer):
    method = StrictChoiceField(choices=Method.choices)
    type = StrictChoiceField(choices=TransactionType.choices)
    amount = StrictIntegerField(min_value=1, max_value=MAX_AMOUNT_CENTS)
    standardEntryClassCode = StrictCharField(max_length=4, required=False, allow_blank=True)  # noqa: N815
    effectiveDate = StrictDateField(required=False, allow_null=True)  # noqa: N815
    customerUuid = StrictUUIDField(required=False, allow_null=True)  # noqa: N815
    paymentMethodUuid = StrictUUIDField(required=False, allow_null=True)  # noqa: N815
    paymentDetails = serializers.DictField(required=False, allow_null=True)  # noqa: N815  (validated per method)
    externalUniqueId = StrictCharField(max_length=255, required=False, allow_blank=True)  # noqa: N815
    description = StrictCharField(max_length=255, required=False, allow_blank=True)
    # CONTRACT 11: the Company Entry Description of the entry's batch, and what the charge pays for.
    entryDescription = StrictCharField(max_length=ENTRY_DESCRIPTION_MAX, required=False)  # noqa: N815
    purpose = StrictChoiceField(choices=Purpose.choices, required=False)

    def validate_entryDescription(self, value: str) -> str:  # noqa: N802
        if not re.fullmatch(ENTRY_DESCRIPTION_PATTERN, value):
            raise serializers.ValidationError(
                "Must be NACHA alphanumeric: upper-case letters, digits, spaces and common punctuation."
            )
        return value

    def to_internal_value(self, data):
        # SPEC 4.7 rule 6 answers before anything else about the body.
        if isinstance(data, dict) and data.get("paymentMethodUuid") not in (None, "") and not data.get("customerUuid"):
            raise ApiError(PAYMENT_METHOD_NEEDS_CUSTOMER, field="customerUuid", code=ErrorCode.REQUIRED)
        return super().to_internal_value(data)

    def validate(self, attrs):
        rule = METHOD_RULES[attrs["method"]]
        code = attrs.get("standardEntryClassCode") or ""
        if code and code not in rule.sec_codes:
            allowed = ", ".join(rule.sec_codes) or "none"
            raise serializers.ValidationError(
                {"standardEntryClassCode": f"{attrs['method']} takes these codes: {allowed}."}
            )
        details = attrs.get("paymentDetails")
        if details is None and not rule.is_card:
            # Rule 2 to the letter: a bank charge carries paymentDetails, even when a saved method replaces it.
            raise ApiError(PAYMENT_DETAILS_REQUIRED, field="paymentDetails", code=ErrorCode.REQUIRED)
        if details is not None:  # rule 2: structurally valid even when a saved method will replace it
            details_serializer = (CardDetailsSerializer if rule.is_card else BankDetailsSerializer)(
                data=details, context=self.context
            )
            if not details_serializer.is_valid():
                raise serializers.ValidationError({"paymentDetails": details_serializer.errors})
            attrs["paymentDetails"] = details_serializer.to_service()
        return attrs


# In the canonical body a card or account number is its keyed hash and the cvv is left out: the fingerprint is
# stored for 24 h, and the CVV may not be kept in any form after authorization (PCI DSS 3.3.1).
FINGERPRINT_REPLACED = {"cardNumber": crypto.card_number_hash, "accountNumber": crypto.account_number_hash}
FINGERPRINT_LEFT_OUT = frozenset({"cvv"})


def request_fingerprint(data: object) -> str:
    """The keyed fingerprint an Idempotency-Key compares (CONTRACT 6) of a validated charge body."""
    body = dict(data) if isinstance(data, dict) else data
    details = body.get("paymentDetails") if isinstance(body, dict) else None
    if isinstance(details, dict):
        body["paymentDetails"] = {
            name: FINGERPRINT_REPLACED[name](value)
            if name in FINGERPRINT_REPLACED and isinstance(value, str)
            else value
            for name, value in details.items()
            if name not in FINGERPRINT_LEFT_OUT
        }
    return crypto.request_fingerprint(json.dumps(body, sort_keys=True, separators=(",", ":")))


def idempotency_key(request) -> str:
    key = request.headers.get(IDEMPOTENCY_HEADER, "")
    if len(key) > 255 or (IDEMPOTENCY_HEADER in request.headers and not key.strip()):
        raise ApiError("Idempotency-Key must be 1 to 255 characters", field=IDEMPOTENCY_HEADER)
    return key


class TransactionCreateView(APIView):
    @extend_schema(
        request=ChargeInputSerializer,
        responses={201: OpenApiTypes.OBJECT},
        parameters=[OpenApiParameter(IDEMPOTENCY_HEADER, OpenApiTypes.STR, OpenApiParameter.HEADER)],
        description="Charge (SPEC 4.7). 201 also for DECLINED and HELD; data is the transaction record.",
    )
    def put(self, request):
        key = idempotency_key(request)
        now = timezone.now()
        serializer = ChargeInputSerializer(data=request.data, context={"now": now})
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = transaction_charge(
            company=request.company,
            method=data["method"],
            type=data["type"],
            amount=data["amount"],
            customer_uuid=data.get("customerUuid"),
            payment_method_uuid=data.get("paymentMethodUuid"),
            payment_details=data.get("paymentDetails"),
            standard_entry_class_code=data.get("standardEntryClassCode") or "",
            effective_date=data.get("effectiveDate"),
            external_unique_id=data.get("externalUniqueId") or "",
            description=data.get("description") or "",
            entry_description=data.get("entryDescription"),
            purpose=data.get("purpose"),
            idempotency_key=key,
            request_hash=request_fingerprint(request.data) if key else "",
            now=now,
            actor=Actor.of_request(request),
        )
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(result.record, status=result.status_code, headers=headers)


class TransactionDetailView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT})
    def get(self, request, transaction_uuid: UUID):
        return Response(transaction_record(transaction_get(company=request.company, transaction_uuid=transaction_uuid)))


class TransactionEventsView(APIView):
    @extend_schema(
        responses={200: OpenApiTypes.OBJECT},
        description="The transaction's trail, oldest first: event, fromStatus, toStatus, caller, actor, reason, at.",
    )
    def get(self, request, transaction_uuid: UUID):
        events = transaction_events(company=request.company, transaction_uuid=transaction_uuid)
        return Response([transaction_event_record(event) for event in events])


class TransactionVoidView(APIView):
    @extend_schema(request=None, responses={200: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT})
    def post(self, request, transaction_uuid: UUID):
        txn = transaction_void(
            company=request.company, transaction_uuid=transaction_uuid, actor=Actor.of_request(request)
        )
        return Response(transaction_record(txn))
