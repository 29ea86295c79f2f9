"""POST /transactions/{uuid}/reverse: reverse a Settled debit with an offsetting credit."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from transactions.lifecycle.reversal import transaction_reverse
from transactions.records import transaction_record
from transactions.state import Actor


class TransactionReverseView(APIView):
    @extend_schema(
        request=None,
        responses={201: OpenApiTypes.OBJECT, 409: OpenApiTypes.OBJECT},
        description="Reverse a Settled debit: 201 with the offsetting Credit (its reversalUuid names the original).",
    )
    def post(self, request, transaction_uuid):
        if request.body and request.data not in ({}, None):
            raise serializers.ValidationError({"non_field_errors": ["This route takes no body."]})
        credit = transaction_reverse(
            company=request.company,
            transaction_uuid=transaction_uuid,
            actor=Actor.of_request(request),
            at=timezone.now(),
        )
        return Response(transaction_record(credit), status=status.HTTP_201_CREATED)
