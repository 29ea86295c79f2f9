"""Mandate endpoints (CONTRACT 14): create and list under a customer, read, revoke, and the proof packet."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from customers.selectors import customer_get
from idempotency.services import IDEMPOTENCY_CONFLICT, IDEMPOTENCY_PARAMETER, idempotent_response
from mandates.errors import MandateNotFound
from mandates.models import SEC_CODES, Mandate
from mandates.records import mandate_record
from mandates.selectors import mandate_evidence, mandate_get, mandate_list
from mandates.services import EVIDENCE_MAX_BYTES, MandateTerms, mandate_create
from payments.selectors import payment_method_get
from transactions.charges.revocation import mandate_revoke_stopping
from transactions.mandates.proof import PDF_CONTENT_TYPE, PDFRenderer, mandate_debits, proof_pdf
from transactions.methods.sec_codes import account_holder, sec_code_check
from transactions.models import TransactionType
from transactions.state import Actor
from vault.csv_export import CSVRenderer
from vault.envelope import EnvelopeJSONRenderer
from vault.openapi import Paginated, error
from vault.pagination import whole_list_body
from vault.serializers import (
    OneLineCharField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
    StrictUUIDField,
)

# Base64 of EVIDENCE_MAX_BYTES, rounded up to whole quanta.
EVIDENCE_MAX_CHARACTERS = (EVIDENCE_MAX_BYTES + 2) // 3 * 4


class MandateTermsInput(StrictSerializer):
    maxAmount = StrictIntegerField(required=False, min_value=1, help_text="Cents: no debit above it.")
    frequency = StrictChoiceField(choices=Mandate.Frequency.choices, required=False)


class MandateCreateInput(StrictSerializer):
    paymentMethodUuid = StrictUUIDField()
    standardEntryClassCode = StrictChoiceField(choices=[(code, code) for code in SEC_CODES])
    type = StrictChoiceField(choices=Mandate.Type.choices)
    channel = StrictChoiceField(choices=Mandate.Channel.choices)
    acceptedAt = serializers.DateTimeField(help_text="When the payer accepted it (ISO 8601); not in the future.")
    text = StrictCharField(max_length=20000, help_text="The authorization wording the payer accepted.")
    terms = MandateTermsInput(required=False)
    ipAddress = serializers.IPAddressField(required=False, help_text="Required when channel is online.")
    userAgent = OneLineCharField(
        max_length=1000, required=False, help_text="Required when channel is online; one line (no control characters)."
    )
    evidence = StrictCharField(
        max_length=EVIDENCE_MAX_CHARACTERS,
        required=False,
        help_text="A file as base64 (a signed form, a recording), up to 5 MB; encrypted at rest.",
    )


class MandateRevokeInput(StrictSerializer):
    reason = StrictCharField(max_length=255)


class MandateTermsOutput(serializers.Serializer):
    maxAmount = serializers.IntegerField(allow_null=True)
    frequency = serializers.CharField(allow_null=True)


class MandateOutput(serializers.Serializer):
    mandateUuid = serializers.UUIDField()
    customerUuid = serializers.UUIDField()
    paymentMethodUuid = serializers.UUIDField()
    accountNumber = serializers.CharField(help_text="Masked: ****6789.")
    status = serializers.ChoiceField(choices=Mandate.Status.choices)
    standardEntryClassCode = serializers.CharField()
    type = serializers.ChoiceField(choices=Mandate.Type.choices)
    channel = serializers.ChoiceField(choices=Mandate.Channel.choices)
    acceptedAt = serializers.DateTimeField()
    text = serializers.CharField()
    textSha256 = serializers.CharField()
    terms = MandateTermsOutput()
    ipAddress = serializers.CharField(allow_null=True)
    userAgent = serializers.CharField(allow_null=True)
    evidenceSha256 = serializers.CharField(allow_null=True, help_text="The file itself: GET .../proof/evidence.")
    evidenceBytes = serializers.IntegerField(allow_null=True)
    usedAt = serializers.DateTimeField(allow_null=True, help_text="A single mandate: when its one debit was made.")
    revokedAt = serializers.DateTimeField(allow_null=True)
    revokedReason = serializers.CharField(allow_null=True)
    retainUntil = serializers.DateTimeField(
        allow_null=True, help_text="Two years after revocation; the mandate is kept at least until then."
    )
    createdAt = serializers.DateTimeField()


def _terms(data: dict) -> MandateTerms:
    terms = data.get("terms", {})
    return MandateTerms(
        sec_code=data["standardEntryClassCode"],
        type=data["type"],
        channel=data["channel"],
        accepted_at=data["acceptedAt"],
        text=data["text"],
        max_amount=terms.get("maxAmount"),
        frequency=terms.get("frequency", ""),
        ip_address=data.get("ipAddress"),
        user_agent=data.get("userAgent", ""),
        evidence=data.get("evidence"),
    )


class MandateListView(APIView):
    @extend_schema(
        operation_id="mandate_create",
        request=MandateCreateInput,
        responses={
            201: MandateOutput,
            404: error("Customer not found, or Payment method not found."),
            409: error(IDEMPOTENCY_CONFLICT),
        },
        parameters=[IDEMPOTENCY_PARAMETER],
        examples=[
            OpenApiExample(
                "A recurring WEB authorization accepted online",
                request_only=True,
                value={
                    "paymentMethodUuid": "4f1c8a43-5a43-4d2e-9b1c-2b7d3e9f0a11",
                    "standardEntryClassCode": "WEB",
                    "type": "recurring",
                    "channel": "online",
                    "acceptedAt": "2026-12-01T15:04:05Z",
                    "text": "I authorize Acme Gym to debit my account $49.00 monthly until I revoke it.",
                    "terms": {"maxAmount": 4900, "frequency": "monthly"},
                    "ipAddress": "203.0.113.7",
                    "userAgent": "Mozilla/5.0",
                },
            )
        ],
    )
    def post(self, request, customer_uuid):
        body = MandateCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        customer = customer_get(company=request.company, customer_uuid=customer_uuid)
        method = payment_method_get(
            company=request.company, customer=customer, payment_method_uuid=data["paymentMethodUuid"]
        )
        # The SEC code's holder rule (CONTRACT 12): a mandate authorizes debits.
        sec_code_check(data["standardEntryClassCode"], type=TransactionType.DEBIT, holder=account_holder(customer))
        terms = _terms(data)

        def create() -> dict:
            mandate = mandate_create(
                company=request.company, customer=customer, payment_method=method, terms=terms, now=timezone.now()
            )
            return mandate_record(mandate)

        return idempotent_response(request, create=create)

    @extend_schema(operation_id="mandate_list", responses={200: Paginated(MandateOutput, data_key="mandates")})
    def get(self, request, customer_uuid):
        customer = customer_get(company=request.company, customer_uuid=customer_uuid)
        rows = [mandate_record(mandate) for mandate in mandate_list(company=request.company, customer=customer)]
        return Response(whole_list_body(rows, data_key="mandates"))


class MandateDetailView(APIView):
    @extend_schema(operation_id="mandate_get", responses={200: MandateOutput, 404: error("Mandate not found.")})
    def get(self, request, mandate_uuid):
        return Response(mandate_record(mandate_get(company=request.company, mandate_uuid=mandate_uuid)))


class MandateRevokeView(APIView):
    @extend_schema(
        operation_id="mandate_revoke",
        request=MandateRevokeInput,
        responses={
            200: MandateOutput,
            404: error("Mandate not found."),
            409: error("mandate_not_active: the mandate is already revoked."),
        },
    )
    def post(self, request, mandate_uuid):
        body = MandateRevokeInput(data=request.data)
        body.is_valid(raise_exception=True)
        mandate = mandate_get(company=request.company, mandate_uuid=mandate_uuid)
        mandate = mandate_revoke_stopping(
            mandate=mandate, reason=body.validated_data["reason"], actor=Actor.of_request(request)
        )
        return Response(mandate_record(mandate))


class EvidenceRenderer(CSVRenderer):
    """Lets `Accept: application/octet-stream` through (the view answers the file itself)."""

    media_type = "application/octet-stream"
    format = "bin"
    charset = None


class MandateProofView(APIView):
    renderer_classes = [EnvelopeJSONRenderer, PDFRenderer]

    @extend_schema(
        operation_id="mandate_proof",
        summary="The proof-of-authorization packet (PDF)",
        description="One PDF for the bank when a payer disputes a debit: the merchant, the payer, the account (last "
        "four), the authorization text and its SHA-256, when, how and from where it was accepted, the evidence "
        "file's SHA-256, and every debit made under it with its trace number and status.",
        responses={(200, PDF_CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY), 404: error("Mandate not found.")},
    )
    def get(self, request, mandate_uuid):
        mandate = mandate_get(company=request.company, mandate_uuid=mandate_uuid)
        mandate.company = request.company
        packet = proof_pdf(mandate, debits=mandate_debits(mandate), generated_at=timezone.now())
        response = HttpResponse(packet, content_type=PDF_CONTENT_TYPE)
        response["Content-Disposition"] = f'attachment; filename="mandate-{mandate.uuid}.pdf"'
        return response


class MandateEvidenceView(APIView):
    renderer_classes = [EnvelopeJSONRenderer, EvidenceRenderer]

    @extend_schema(
        operation_id="mandate_proof_evidence",
        summary="The mandate's evidence file, as it was sent",
        responses={
            (200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY),
            404: error("Mandate not found, or it has no evidence file."),
        },
    )
    def get(self, request, mandate_uuid):
        mandate = mandate_get(company=request.company, mandate_uuid=mandate_uuid)
        evidence = mandate_evidence(mandate)
        if evidence is None:
            raise MandateNotFound("The mandate has no evidence file")
        response = HttpResponse(evidence, content_type="application/octet-stream")
        response["Content-Disposition"] = f'attachment; filename="mandate-{mandate.uuid}-evidence"'
        return response
