"""Charge endpoints: PUT /transactions, GET /transactions/{uuid} and its events, POST /transactions/{uuid}/void,
/reverse, /refund and /retry."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from uuid import UUID

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from idempotency.services import (
    IDEMPOTENCY_CONFLICT,
    IDEMPOTENCY_PARAMETER,
    idempotency_key,
    idempotent_response,
    replayed_headers,
    request_fingerprint,
)
from payments import numbers
from payments.models import PaymentMethod
from transactions.charges.retry import transaction_retry
from transactions.charges.reversal import ReversalReason, transaction_refund, transaction_reverse
from transactions.charges.rules import (
    bank_details_required,
    entry_description_not_reserved,
    saved_method_needs_customer,
)
from transactions.charges.services import ChargeRequest, transaction_charge, transaction_void
from transactions.methods import method_kind
from transactions.models import Method, Purpose, Status, TransactionType
from transactions.records import transaction_event_record, transaction_record
from transactions.rules import ENTRY_DESCRIPTION_MAX, ENTRY_DESCRIPTION_PATTERN, MAX_AMOUNT_CENTS
from transactions.selectors import transaction_events, transaction_get
from transactions.state import Actor
from vault.openapi import Paginated, error
from vault.pagination import whole_list_body
from vault.serializers import (
    ShallowFieldsMixin,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictDateField,
    StrictIntegerField,
    StrictSerializer,
    StrictUUIDField,
    body_refuse,
)

EXPIRATION = re.compile(r"(0[1-9]|1[0-2])/([0-9]{2})")


class BankDetailsSerializer(ShallowFieldsMixin, StrictSerializer):
    name = StrictCharField(max_length=255)
    accountType = StrictChoiceField(choices=PaymentMethod.AccountType.choices)
    accountNumber = StrictCharField(min_length=4, max_length=17)
    routingNumber = StrictCharField(min_length=9, max_length=9)

    def validate_accountNumber(self, value: str) -> str:
        if not numbers.is_account_number(value):
            raise serializers.ValidationError("Must be 4 to 17 digits.")
        return value

    def validate_routingNumber(self, value: str) -> str:
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


class CardDetailsSerializer(ShallowFieldsMixin, StrictSerializer):
    name = StrictCharField(max_length=255)
    cardNumber = StrictCharField(min_length=12, max_length=19)
    expirationDate = StrictCharField(max_length=5)
    cvv = StrictCharField(min_length=3, max_length=4, required=False)

    def validate_cardNumber(self, value: str) -> str:
        if not numbers.is_card_number(value):
            raise serializers.ValidationError("Must be 12 to 19 digits with a valid Luhn check digit.")
        return value

    def validate_expirationDate(self, value: str) -> str:
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


@extend_schema_field(
    PolymorphicProxySerializer(
        "PaymentDetails", serializers=[BankDetailsSerializer, CardDetailsSerializer], resource_type_field_name=None
    )
)
class PaymentDetailsField(serializers.DictField):
    """paymentDetails on the way in: a bank account (ACH, RCC, RTP) or a card (CRD), validated per method."""


# The charge body's fields as ChargeRequest names them. A field left out or sent as null keeps ChargeRequest's default.
CHARGE_REQUEST_FIELDS = {
    "method": "method",
    "type": "type",
    "amount": "amount",
    "customerUuid": "customer_uuid",
    "paymentMethodUuid": "payment_method_uuid",
    "paymentDetails": "payment_details",
    "standardEntryClassCode": "standard_entry_class_code",
    "effectiveDate": "effective_date",
    "externalUniqueId": "external_unique_id",
    "description": "description",
    "entryDescription": "entry_description",
    "purpose": "purpose",
    "isSameDay": "is_same_day",
    "retryPolicy": "retry_policy",
    "mandateUuid": "mandate_uuid",
}


class ChargeInputSerializer(ShallowFieldsMixin, StrictSerializer):
    method = StrictChoiceField(choices=Method.choices)
    type = StrictChoiceField(choices=TransactionType.choices)
    amount = StrictIntegerField(min_value=1, max_value=MAX_AMOUNT_CENTS)
    standardEntryClassCode = StrictCharField(
        max_length=4,
        required=False,
        allow_blank=True,
        help_text="ACH: PPD (consumer, debit or credit), CCD (organization, debit or credit), WEB or TEL (consumer, "
        "debit only); the holder is the customer's accountHolderType, a charge with no customer follows the "
        "direction rule only. Default: WEB for a consumer's debit, PPD for a consumer's credit, CCD for an "
        "organization. RCC is sent as an ACH TEL entry (TEL rules: consumer debit only) and takes TEL or "
        "nothing; RTP and CRD take none. A code that does not fit: 400 sec_code_not_allowed.",
    )
    isSameDay = StrictBooleanField(
        required=False,
        allow_null=True,
        help_text="Ask for Same Day ACH (ACH and RCC only; default false). Above 100000000 cents ($1,000,000): "
        "400 same_day_not_allowed. Without it the entry settles the next banking day after the file's processing "
        "day. A same-day request cut after the company's last same-day window goes out next day.",
    )
    effectiveDate = StrictDateField(required=False, allow_null=True)
    customerUuid = StrictUUIDField(required=False, allow_null=True)
    paymentMethodUuid = StrictUUIDField(required=False, allow_null=True)
    paymentDetails = PaymentDetailsField(  # validated per method
        required=False,
        allow_null=True,
        help_text="Required for ACH, RCC and RTP, also with a saved method (whose details then replace it); "
        "a card for CRD.",
    )
    externalUniqueId = StrictCharField(max_length=255, required=False, allow_blank=True)
    description = StrictCharField(max_length=255, required=False, allow_blank=True)
    # CONTRACT 11: the Company Entry Description of the entry's batch, and what the charge pays for.
    entryDescription = StrictCharField(
        max_length=ENTRY_DESCRIPTION_MAX,
        required=False,
        help_text="Company Entry Description (ACH, RCC). ACCTVERIFY, REVERSAL, RETRY PYMT and RETURN FEE are "
        "reserved: the service writes them itself (400 entry_description_reserved), also when written without "
        "spaces, in lower case or with more after them (RETRYPYMT, Reversals).",
    )
    purpose = StrictChoiceField(choices=Purpose.choices, required=False)
    retryPolicy = StrictChoiceField(
        choices=[("none", "none")],
        required=False,
        help_text='"none": never re-presented automatically, whatever the company\'s retry policy.',
    )
    mandateUuid = StrictUUIDField(
        required=False,
        allow_null=True,
        help_text="The payer's authorization the debit goes under: it must be active, for this customer, "
        "saved method and SEC code, and cover the amount (409 mandate_not_active, outside_mandate_terms). Under the "
        "company's mandatePolicy require, a consumer debit without it goes under the newest active mandate for its "
        "customer, method and SEC code, or is 409 mandate_required. WEB and TEL entries under a recurring mandate "
        "carry Payment Type Code R.",
    )

    def validate_entryDescription(self, value: str) -> str:
        entry_description_not_reserved(value)  # first: `Reversals` is refused as reserved, not for its case
        if not re.fullmatch(ENTRY_DESCRIPTION_PATTERN, value):
            raise serializers.ValidationError(
                "Must be NACHA alphanumeric: upper-case letters, digits, spaces and common punctuation."
            )
        return value

    def to_internal_value(self, data):
        saved_method_needs_customer(data)
        return super().to_internal_value(data)

    def validate(self, attrs):
        kind = method_kind(attrs["method"])
        code = attrs.get("standardEntryClassCode") or ""
        if code and code not in kind.sec_codes:
            allowed = ", ".join(kind.sec_codes) or "none"
            raise serializers.ValidationError(
                {"standardEntryClassCode": f"{attrs['method']} takes these codes: {allowed}."}
            )
        details = attrs.get("paymentDetails")
        bank_details_required(kind, details)
        if details is not None:  # rule 2: structurally valid even when a saved method will replace it
            details_serializer = (CardDetailsSerializer if kind.pays_by_card else BankDetailsSerializer)(
                data=details, context=self.context
            )
            if not details_serializer.is_valid():
                raise serializers.ValidationError({"paymentDetails": details_serializer.errors})
            attrs["paymentDetails"] = details_serializer.to_service()
        return attrs


def charge_request(body: dict[str, Any], **context: Any) -> ChargeRequest:
    """The validated body (ChargeInputSerializer's, or plain_charge_body's) as a ChargeRequest; `context` is what the
    body does not say (company, actor, now, idempotency_key, request_hash)."""
    given = {name: body.get(key) for key, name in CHARGE_REQUEST_FIELDS.items()}
    return ChargeRequest(**{name: value for name, value in given.items() if value is not None}, **context)


# The fields plain_charge_body takes (text fields: their most characters); a body with any other goes to the serializer.
_PLAIN_TEXT = {"externalUniqueId": 255, "description": 255}
_PLAIN_FIELDS = frozenset(
    {"method", "type", "amount", "customerUuid", "paymentMethodUuid", "paymentDetails", "isSameDay"}
)
_PLAIN_FIELDS |= _PLAIN_TEXT.keys()
_BANK_FIELDS = frozenset({"name", "accountType", "accountNumber", "routingNumber"})
_METHODS, _TYPES = frozenset(Method.values), frozenset(TransactionType.values)
_ACCOUNT_TYPES = frozenset(PaymentMethod.AccountType.values)


def _plain_text(value: object, *, high: int, low: int = 1) -> bool:
    """A string a StrictCharField keeps exactly as sent: low to high ASCII characters, no NUL, nothing to trim."""
    return (
        type(value) is str
        and low <= len(value) <= high
        and value.isascii()
        and "\x00" not in value
        and value.strip() == value
    )


def _plain_bank_details(details: object) -> dict[str, str] | None:
    """BankDetailsSerializer's to_service() of plain bank details; None for anything else."""
    if type(details) is not dict or details.keys() != _BANK_FIELDS:
        return None
    name, account_type = details["name"], details["accountType"]
    number, routing = details["accountNumber"], details["routingNumber"]
    plain = (
        _plain_text(name, high=255)
        and type(account_type) is str
        and account_type in _ACCOUNT_TYPES
        and _plain_text(number, low=4, high=17)
        and numbers.is_account_number(number)
        and _plain_text(routing, low=9, high=9)
        and numbers.is_routing_number(routing)
    )
    return (
        {"name": name, "account_type": account_type, "account_number": number, "routing_number": routing}
        if plain
        else None
    )


def _plain_uuid(value: object) -> UUID | None:
    if type(value) is not str:
        return None
    try:
        return UUID(hex=value)  # as DRF's UUIDField reads a string
    except ValueError:
        return None


def plain_charge_body(data: object) -> dict[str, Any] | None:
    """What ChargeInputSerializer validates a plain bank charge to (method, type, amount, the customer's and saved
    method's uuids, a bank account's paymentDetails, isSameDay, externalUniqueId, description, each as JSON gives
    it), without building the serializer and its 18 fields for every charge (about a tenth of a charge's CPU). None
    for any other body, and for anything it is not sure of: the serializer validates those, so every 400 is still
    its own (tests/transactions/charges/test_plain_charge_body.py holds the two to the same answers)."""
    if type(data) is not dict or not data.keys() <= _PLAIN_FIELDS:
        return None
    saved_method_needs_customer(data)  # the serializer's first check, with the same error
    body = {name: value for name, value in data.items() if value is not None}  # null: left out (CONTRACT 4)
    method, type_, amount = body.get("method"), body.get("type"), body.get("amount")
    if type(method) is not str or method not in _METHODS or type(type_) is not str or type_ not in _TYPES:
        return None
    if type(amount) is not int or not 1 <= amount <= MAX_AMOUNT_CENTS or method_kind(method).pays_by_card:
        return None
    if type(body.get("isSameDay", False)) is not bool:
        return None
    for name, high in _PLAIN_TEXT.items():
        if name in body and not _plain_text(body[name], high=high, low=0):
            return None
    for name in ("customerUuid", "paymentMethodUuid"):
        if name in body:
            body[name] = _plain_uuid(body[name])
            if body[name] is None:
                return None
    body["paymentDetails"] = _plain_bank_details(body.get("paymentDetails"))
    return body if body["paymentDetails"] is not None else None


class BankDetailsOutput(serializers.Serializer):
    name = serializers.CharField()
    accountType = serializers.CharField()
    accountNumber = serializers.CharField(help_text="Masked to the last four: ****6789.")
    routingNumber = serializers.CharField()


class CardDetailsOutput(serializers.Serializer):
    name = serializers.CharField()
    cardNumber = serializers.CharField(help_text="Masked: first six and last four.")
    panFirstSix = serializers.CharField()
    panLastFour = serializers.CharField()
    expirationDate = serializers.CharField()


def _nullable_text(**kwargs) -> serializers.CharField:
    return serializers.CharField(allow_null=True, **kwargs)


@extend_schema_field(
    PolymorphicProxySerializer(
        "PaymentDetailsRecord", serializers=[BankDetailsOutput, CardDetailsOutput], resource_type_field_name=None
    )
)
class PaymentDetailsRecordField(serializers.DictField):
    """paymentDetails in the record: the bank account (masked) or the card (masked)."""


class RetryOutput(serializers.Serializer):
    willAttemptRetry = serializers.BooleanField()
    scheduledFor = serializers.DateField(allow_null=True)
    attempt = serializers.IntegerField(allow_null=True, help_text="1 or 2: which re-presentment.")
    status = _nullable_text(help_text="scheduled, created, cancelled or skipped; null when none was scheduled.")
    reason = _nullable_text(help_text="Why it was cancelled or skipped (window_closed past day 180, ...).")
    transactionUuid = serializers.UUIDField(
        allow_null=True,
        help_text="The debit that re-presented this one (made by run_retries or POST /transactions/{uuid}/retry); "
        "null until one is made.",
    )


class ReturnWindowsOutput(serializers.Serializer):
    administrativeUntil = serializers.DateField()
    unauthorizedUntil = serializers.DateField()


class TransactionRecordOutput(serializers.Serializer):
    """A transaction as every route, event and webhook shows it (transactions.records builds it; this documents it)."""

    schema_description = "A transaction as every route, event and webhook shows it."

    uuid = serializers.UUIDField()
    numericId = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Status.choices)
    amount = serializers.IntegerField(
        allow_null=True,
        help_text="Cents. null only for the micro-entries of an account validation: their amounts are the payer's "
        "secret.",
    )
    method = serializers.ChoiceField(choices=Method.choices)
    type = serializers.ChoiceField(choices=TransactionType.choices)
    effectiveDate = serializers.DateField()
    customerUuid = serializers.UUIDField(allow_null=True)
    paymentMethodUuid = serializers.UUIDField(allow_null=True)
    standardEntryClassCode = _nullable_text(
        help_text="The SEC code the entry travels under: TEL for RCC (sent as an ACH TEL entry); null for RTP, CRD."
    )
    paymentDetails = PaymentDetailsRecordField()
    createdAt = serializers.DateTimeField()
    isSameDay = serializers.BooleanField(
        help_text="Before the entry is batched, what the request asked; once batched, what the file says "
        "(its batch's effective date is the processing day)."
    )
    isDuplicate = serializers.BooleanField()
    externalUniqueId = _nullable_text()
    idempotencyKey = _nullable_text()
    sequenceUuid = serializers.UUIDField()
    rtpTransactionId = _nullable_text()
    description = _nullable_text()
    failureReason = _nullable_text(
        help_text="Why it was DECLINED (a risk limit, a blocked or unvalidated account, an expired card); else null."
    )
    returnCode = _nullable_text(help_text="The ACH return code (R01, R03, ...) once it was returned; else null.")
    returnReason = _nullable_text(help_text="That code's reason, e.g. `Insufficient Funds`; null until returned.")
    returnedAt = serializers.DateTimeField(allow_null=True, help_text="When the return was received; else null.")
    untimely = serializers.BooleanField(
        allow_null=True,
        help_text="Once returned: true when the return arrived after its code's time frame (it is applied all the "
        "same; our bank may dishonor it); else false. Null until returned.",
    )
    voidedAt = serializers.DateTimeField(allow_null=True)
    reversalUuid = serializers.UUIDField(allow_null=True)
    reversedAt = serializers.DateTimeField(allow_null=True)
    refundOfUuid = serializers.UUIDField(allow_null=True, help_text="A refund: the debit it refunds.")
    retryOf = serializers.UUIDField(
        allow_null=True,
        help_text="A re-presentment (RETRY PYMT): the first presentment of the debit it presents again; else null.",
    )
    mandateUuid = serializers.UUIDField(allow_null=True, help_text="The payer's mandate the debit goes under.")
    scheduleUuid = serializers.UUIDField(
        allow_null=True, help_text="The schedule that made the debit (set once run_schedules has linked it)."
    )
    authorizedAt = serializers.DateTimeField(allow_null=True, required=False, help_text="Cards only.")
    authResponseCode = _nullable_text(required=False, help_text="Cards only.")
    holdCode = _nullable_text(required=False, help_text="HELD only.")
    retryPolicy = _nullable_text(help_text='"none" when the charge opted out of automatic re-presentment.')
    retry = RetryOutput(
        allow_null=True, help_text="A returned debit's next presentment under the retry policy; null unless returned."
    )
    finality = _nullable_text(
        help_text="pending | available | final for an ACH/RCC debit (an attribute, not a status); final for a settled "
        "RTP payment; null otherwise."
    )
    returnWindows = ReturnWindowsOutput(
        allow_null=True,
        help_text="The last days a return is timely, from the moment the debit settles (counted from its day).",
    )
    fundsAvailableAt = serializers.DateTimeField(
        allow_null=True, help_text="Settlement plus the company's fundsHoldBankingDays (default 2)."
    )
    finalAt = serializers.DateTimeField(allow_null=True, help_text="When unauthorizedUntil passed.")
    afterFinal = serializers.BooleanField(help_text="Returned after it was final (a late return still applies).")
    holdReason = _nullable_text(required=False, help_text="HELD only.")


class TransactionEventOutput(serializers.Serializer):
    """One entry of a transaction's trail (transactions.records.transaction_event_record builds it)."""

    schema_description = "One entry of a transaction's trail: a status change, who made it and why."

    event = serializers.CharField()
    fromStatus = serializers.ChoiceField(choices=Status.choices, allow_null=True)
    toStatus = serializers.ChoiceField(choices=Status.choices)
    caller = serializers.CharField(help_text="api, admin or command.")
    actor = serializers.CharField(help_text="api_key:<id>, user:<id> or the command's name.")
    reason = serializers.CharField(allow_null=True)
    at = serializers.DateTimeField()


class TransactionCreateView(APIView):
    @extend_schema(
        request=ChargeInputSerializer,
        responses={
            201: TransactionRecordOutput,
            404: error("Customer not found / Payment method not found."),
            409: error(
                "idempotency_key_reused: "
                + IDEMPOTENCY_CONFLICT
                + " account_blocked: a return (R02, R03, R04, R05, R07, R08, R10, R16, R20, R29) blocked "
                "this account for debits until staff lift it; data names the returned transaction. "
                "reinitiation_requires_retry: a debit to this account, of any amount, was returned R01/R09 within "
                "180 days; data.transactionUuid names it, re-present it with POST /transactions/{uuid}/retry. "
                "Both rules ignore leading zeros of the account number."
            ),
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        examples=[
            OpenApiExample(
                "ACH debit of a saved account",
                request_only=True,
                value={
                    "method": "ACH",
                    "type": "Debit",
                    "amount": 1500,
                    "customerUuid": "8d7e2c55-1f0a-4c8e-9a43-3b2f7d8e1a10",
                    "paymentMethodUuid": "0b6f1f9e-5a8e-4f0e-8b1e-6c7d2a9f3e21",
                    "paymentDetails": {
                        "name": "Replaced by the saved method",
                        "accountType": "Checking",
                        "accountNumber": "0000",
                        "routingNumber": "021000021",
                    },
                },
            ),
            OpenApiExample(
                "Card sale",
                request_only=True,
                value={
                    "method": "CRD",
                    "type": "Debit",
                    "amount": 2500,
                    "paymentDetails": {
                        "name": "Grace Hopper",
                        "cardNumber": "4111111111111111",
                        "expirationDate": "12/39",
                    },
                },
            ),
        ],
        summary="Charge: debit or credit a bank account, a saved method or a card",
        description=(
            "Creates a transaction. 201 also when a risk limit DECLINED or HELD it (`failureReason`, `holdCode`); "
            "`data` is the transaction record. With `customerUuid` and `paymentMethodUuid` the saved method is "
            "charged (`paymentDetails` must still be sent for ACH, RCC and RTP; the saved details replace them). Send "
            "an `Idempotency-Key` to make a retry safe. Every ACH WEB debit, saved method or one-off paymentDetails, "
            "passes the company's accountValidation policy for its account (routing + account number): `require` -> "
            "DECLINED, failureReason `account not validated`; `prenote_first` -> HELD, holdCode VAL (`account "
            "validation failed` -> DECLINED). A credit the company's credit-monitoring rules trip (account added or "
            "changed within N banking days, receiver velocity) -> HELD, holdCode NEW, released by an operator. "
            "ACH rules (docs/ach-rules.md): 400 sec_code_not_allowed (standardEntryClassCode against "
            "direction and holder), same_day_not_allowed (isSameDay), entry_description_reserved (entryDescription)."
        ),
    )
    def put(self, request):
        key = idempotency_key(request)
        now = timezone.now()
        body = plain_charge_body(request.data)
        if body is None:
            serializer = ChargeInputSerializer(data=request.data, context={"now": now})
            serializer.is_valid(raise_exception=True)
            body = serializer.validated_data
        result = transaction_charge(
            charge_request(
                body,
                company=request.company,
                actor=Actor.of_request(request),
                now=now,
                idempotency_key=key,
                request_hash=request_fingerprint(request.data) if key else "",
            )
        )
        return Response(result.record, status=result.status_code, headers=replayed_headers(result))


class TransactionDetailView(APIView):
    @extend_schema(
        responses={200: TransactionRecordOutput, 404: error("Transaction not found.")},
        description="The transaction record; a micro-entry of an account validation shows `amount: null`.",
    )
    def get(self, request, transaction_uuid: UUID):
        return Response(transaction_record(transaction_get(company=request.company, transaction_uuid=transaction_uuid)))


class TransactionEventsView(APIView):
    @extend_schema(
        responses={200: Paginated(TransactionEventOutput)},
        description="The transaction's trail, oldest first: event, fromStatus, toStatus, caller, actor, reason, at.",
    )
    def get(self, request, transaction_uuid: UUID):
        events = transaction_events(company=request.company, transaction_uuid=transaction_uuid)
        return Response(whole_list_body([transaction_event_record(event) for event in events]))


class TransactionVoidView(APIView):
    @extend_schema(
        request=None,
        responses={200: TransactionRecordOutput, 409: error("Only a Pending transaction can be voided.")},
    )
    def post(self, request, transaction_uuid: UUID):
        body_refuse(request)
        txn = transaction_void(
            company=request.company, transaction_uuid=transaction_uuid, actor=Actor.of_request(request)
        )
        return Response(transaction_record(txn))


class ReverseInputSerializer(StrictSerializer):
    reason = StrictChoiceField(
        choices=ReversalReason.choices, help_text="The error being corrected (the entries Nacha lets you reverse)."
    )


class RefundInputSerializer(StrictSerializer):
    amount = StrictIntegerField(
        min_value=1,
        max_value=MAX_AMOUNT_CENTS,
        required=False,
        help_text="Cents; at most the original amount less earlier refunds (the default: all of that).",
    )


class TransactionReverseView(APIView):
    @extend_schema(
        request=ReverseInputSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={
            201: TransactionRecordOutput,
            404: error("Transaction not found (also an account validation's prenote or micro-entry)."),
            400: error("reason missing or not one of duplicate, wrong_receiver, wrong_amount, wrong_date."),
            409: error(
                "not_reversible: only a Settled debit can be reversed, once. reversal_window_closed: an ACH or RCC "
                "reversal goes out at the latest 5 banking days after the original's settlement date; send a "
                "refund instead. refund_exists: a refund of the debit is pending or sent (data names it), and a "
                "reversal as well would credit more than the debit; void a Pending refund first. "
                "payment_method_blocked: the saved method was blocked by a return since. "
                "idempotency_key_reused: " + IDEMPOTENCY_CONFLICT
            ),
        },
        description="Nacha reversal of an erroneous Settled debit: 201 with the offsetting Credit (same SEC code and "
        "amount, Company Entry Description REVERSAL; its reversalUuid names the original, which becomes Reversed). "
        "For money given back on a good debit, use POST /transactions/{uuid}/refund.",
    )
    def post(self, request, transaction_uuid):
        serializer = ReverseInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return idempotent_response(
            request,
            create=lambda: transaction_record(
                transaction_reverse(
                    company=request.company,
                    transaction_uuid=transaction_uuid,
                    reason=serializer.validated_data["reason"],
                    actor=Actor.of_request(request),
                    at=timezone.now(),
                )
            ),
        )


class TransactionRefundView(APIView):
    @extend_schema(
        request=RefundInputSerializer,
        parameters=[IDEMPOTENCY_PARAMETER],
        responses={
            201: TransactionRecordOutput,
            400: error("amount not a whole number of cents from 1."),
            409: error(
                "refund_exceeds_original (field amount): more than the original amount less earlier refunds. "
                "not_refundable: only a Settled debit can be refunded (never a Reversed one). "
                "payment_method_blocked: the saved method was blocked by a return since. idempotency_key_reused: "
                + IDEMPOTENCY_CONFLICT
            ),
        },
        description="Refund (part of) a Settled debit: 201 with a new Credit linked to it (refundOfUuid). An ACH or "
        "RCC debit is refunded by an ACH credit, PPD to a consumer or CCD to an organization, Company Entry "
        "Description REFUND; an RTP charge by an RTP credit; a card sale by a card credit. The original stays "
        "Settled; refunds add up to at most its amount, also when sent at once.",
    )
    def post(self, request, transaction_uuid):
        serializer = RefundInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return idempotent_response(
            request,
            create=lambda: transaction_record(
                transaction_refund(
                    company=request.company,
                    transaction_uuid=transaction_uuid,
                    amount=serializer.validated_data.get("amount"),
                    actor=Actor.of_request(request),
                    at=timezone.now(),
                )
            ),
        )


class TransactionRetryView(APIView):
    @extend_schema(
        request=None,
        responses={201: OpenApiTypes.OBJECT, 404: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT},
        parameters=[IDEMPOTENCY_PARAMETER],
        description="Re-present a debit returned R01 or R09 (at most twice, within 180 days): 201 with the new "
        "debit; any other return code is 409 with the reason. Also 409: " + IDEMPOTENCY_CONFLICT,
    )
    def post(self, request, transaction_uuid):
        body_refuse(request)
        return idempotent_response(
            request,
            create=lambda: transaction_retry(
                company=request.company,
                transaction_uuid=transaction_uuid,
                now=timezone.now(),
                actor=Actor.of_request(request),
            ).record,
        )
