"""POST /transactions/{uuid}/reverse: reverse a Settled debit with an offsetting credit."""
from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from transactions.lifecycle.reversal import transaction_reverse


class ReversalOutput(serializers.Serializer):
    uuid = serializers.UUIDField()
    numericId = serializers.IntegerField(source="pk")  # noqa: N815 - wire names
    status = serializers.CharField()
    amount = serializers.IntegerField()
    method = serializers.CharField()
    type = serializers.CharField()
    effectiveDate = serializers.DateField(source="effective_date")  # noqa: N815
    createdAt = serializers.DateTimeField(source="created_at")  # noqa: N815
    reversalOf = serializers.UUIDField(source="reversal_of.uuid")  # noqa: N815


class TransactionReverseView(APIView):
    def post(self, request, transaction_uuid):
        if request.body and request.data not in ({}, None):
            raise serializers.ValidationError({"non_field_errors": ["This route takes no body."]})
        credit = transaction_reverse(company=request.company, transaction_uuid=transaction_uuid, at=timezone.now())
        return Response(ReversalOutput(credit).data, status=status.HTTP_201_CREATED)
