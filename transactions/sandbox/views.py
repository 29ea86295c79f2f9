"""Sandbox simulation routes: 404 for a live company, action SimulateSandbox."""

from __future__ import annotations

from uuid import UUID

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from transactions.charges.views import TransactionRecordOutput
from transactions.records import transaction_record
from transactions.return_codes import CHANGE_CODES
from transactions.sandbox import magic
from transactions.sandbox.services import (
    MAX_ADVANCE_DAYS,
    sandbox_clock_advance,
    sandbox_company,
    sandbox_notice_simulate,
    sandbox_return_simulate,
    sandbox_risk_reset,
)
from transactions.state import Actor
from vault.openapi import error
from vault.serializers import StrictCharField, StrictIntegerField, StrictSerializer

SANDBOX_ONLY = "A live company gets 404 here, as if the route did not exist."


class SimulateReturnInput(StrictSerializer):
    code = StrictCharField(max_length=3, help_text="A return reason code, R01-R85 (not the dishonored R61-R77).")


class CorrectedDataInput(StrictSerializer):
    accountNumber = StrictCharField(required=False, max_length=17)
    routingNumber = StrictCharField(required=False, max_length=9)
    accountType = StrictCharField(required=False, max_length=10)
    name = StrictCharField(required=False, max_length=22)


class SimulateNoticeInput(StrictSerializer):
    code = StrictCharField(max_length=3, help_text="A notice-of-change code, C01-C14.")
    correctedData = CorrectedDataInput(
        required=False,
        help_text=f"The corrected values; by default account {magic.CORRECTED_ACCOUNT_NUMBER}, routing "
        f"{magic.CORRECTED_ROUTING_NUMBER}, name {magic.CORRECTED_NAME}, the other account type.",
    )


class ClockAdvanceInput(StrictSerializer):
    days = StrictIntegerField(min_value=1, max_value=MAX_ADVANCE_DAYS, help_text="Banking days to move on.")


class ClockOutput(serializers.Serializer):
    now = serializers.DateTimeField(help_text="The company's sandbox clock (ISO 8601 UTC).")
    days = serializers.IntegerField()
    batches = serializers.IntegerField()
    transactions = serializers.IntegerField(help_text="Entries sent in the sandbox's files.")
    settled = serializers.IntegerField()
    returns = serializers.IntegerField()
    notices = serializers.IntegerField()
    lateReturns = serializers.IntegerField()


def _upper(value: str) -> str:
    return value.strip().upper()


class SandboxReturnView(APIView):
    @extend_schema(
        operation_id="sandbox_transaction_return",
        summary="Simulate a return",
        request=SimulateReturnInput,
        responses={
            200: TransactionRecordOutput,
            400: error("Unknown code, or a dishonored/contested one (field `code`)."),
            404: error(f"No such transaction of the company. {SANDBOX_ONLY}"),
            409: error("The entry was not sent yet, or is already returned (code `not_simulatable`)."),
        },
        description="The receiving bank returns a sent entry with the code: before it settles it is Returned, "
        "after it a late return. The same return file path as a real bank's file, so the same records, events "
        "(`transaction.returned`, `transaction.late_returned`) and webhooks. " + SANDBOX_ONLY,
    )
    def post(self, request, transaction_uuid: UUID):
        sandbox_company(request.company)
        body = SimulateReturnInput(data=request.data)
        body.is_valid(raise_exception=True)
        txn = sandbox_return_simulate(
            company=request.company, transaction_uuid=transaction_uuid, code=_upper(body.validated_data["code"])
        )
        return Response(transaction_record(txn))


class SandboxNoticeOfChangeView(APIView):
    @extend_schema(
        operation_id="sandbox_transaction_notice_of_change",
        summary="Simulate a notice of change",
        request=SimulateNoticeInput,
        responses={
            200: TransactionRecordOutput,
            400: error("Unknown code, or corrected data the code does not correct (fields `code`, `correctedData`)."),
            404: error(f"No such transaction of the company. {SANDBOX_ONLY}"),
            409: error("The entry was not sent yet, or already has a notice (code `not_simulatable`)."),
        },
        description="The receiving bank sends a NOC for a sent entry; the saved method is corrected as by a real "
        f"NOC (`payment_method.updated`). Codes: {', '.join(CHANGE_CODES)}. " + SANDBOX_ONLY,
    )
    def post(self, request, transaction_uuid: UUID):
        sandbox_company(request.company)
        body = SimulateNoticeInput(data=request.data)
        body.is_valid(raise_exception=True)
        corrected = body.validated_data.get("correctedData")
        txn = sandbox_notice_simulate(
            company=request.company,
            transaction_uuid=transaction_uuid,
            code=_upper(body.validated_data["code"]),
            corrected=dict(corrected) if corrected is not None else None,
        )
        return Response(transaction_record(txn))


class SandboxClockAdvanceView(APIView):
    @extend_schema(
        operation_id="sandbox_clock_advance",
        summary="Advance the sandbox clock",
        request=ClockAdvanceInput,
        responses={
            200: ClockOutput,
            400: error(f"`days` is not between 1 and {MAX_ADVANCE_DAYS}."),
            404: error(SANDBOX_ONLY),
            409: error("Another advance of the company ran at the same time (code `sandbox_clock_moved`)."),
        },
        description="Moves the company's clock `days` banking days on. Each day the morning file is cut "
        "(`originate`, into a sandbox file that never goes to a bank) and the evening settles (`settle`), for this "
        "company only; magic account numbers come back as the bank would send them: 000555NN returned with RNN, "
        "000666NN noticed with CNN, 000777NN returned late with RNN 40 days after it settled. A charge made now "
        "settles on the second banking day advanced (a Same Day one on the first). " + SANDBOX_ONLY,
    )
    def post(self, request):
        sandbox_company(request.company)
        body = ClockAdvanceInput(data=request.data)
        body.is_valid(raise_exception=True)
        return Response(sandbox_clock_advance(company=request.company, days=body.validated_data["days"]))


class RiskResetOutput(serializers.Serializer):
    holdsLifted = serializers.IntegerField(help_text="Debit holds lifted: the company's and its customers'.")
    debitsReleased = serializers.IntegerField(
        help_text="Debits those holds had made HELD (holdCode RTN), released: each goes on as an unheld debit "
        "(Pending for the next file), with a transaction.released event."
    )
    returnRatesSince = serializers.DateTimeField(
        help_text="The company's return rates count debits sent and returns received from this time on."
    )


class SandboxRiskResetView(APIView):
    @extend_schema(
        operation_id="sandbox_risk_reset",
        summary="Reset the sandbox's return-rate program",
        request=None,
        responses={200: RiskResetOutput, 404: error(SANDBOX_ONLY)},
        description="Lifts every debit hold of the company (a breached return rate's, a return policy's on one "
        "customer), releases the debits they held (holdCode RTN) and starts its return rates afresh at the "
        "sandbox clock's now, so that a developer whose magic returns tripped the return-rate program can go on; "
        "the next breach holds debits again. The holds and rates themselves: GET /risk/report and "
        "GET /risk/return-rates. " + SANDBOX_ONLY,
    )
    def post(self, request):
        sandbox_company(request.company)
        return Response(sandbox_risk_reset(company=request.company, actor=Actor.of_request(request)))
