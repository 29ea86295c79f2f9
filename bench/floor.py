"""The floors the benches compare against, mounted only when a bench serves `bench.floor_settings`:

- GET /bench/naive/transactions: the reporting listing as a plain DRF app would write it (ListAPIView, a
  ModelSerializer with nested serializers for the one-to-one lifecycle rows on the wide query, select_related,
  a django-filter FilterSet, PageNumberPagination with its count);
- PUT /bench/floor/transactions: a bare charge (the same body, saved-method or one-off, validated by a plain
  Serializer, one INSERT);
- PUT /bench/unthrottled/transactions: our charge view without the API throttle (L6), so bench/charges.py
  `--against unthrottled` measures what the throttle costs;
- GET /bench/empty: an empty body through the same gunicorn, middleware, authentication, permission and
  renderer: the part of every request both listings share (bench/reporting.py measures it).

Same authentication, company scoping and JSON envelope as the service, so the difference is the work itself."""

from __future__ import annotations

import django_filters
from django.urls import include, path
from django.utils import timezone
from rest_framework import generics, serializers, status
from rest_framework.filters import OrderingFilter
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from transactions.charges.views import TransactionCreateView
from transactions.models import (
    Batch,
    ChangeNotice,
    Method,
    Settlement,
    Transaction,
    TransactionException,
    TransactionHold,
    TransactionReturn,
    TransactionType,
)
from vault import crypto
from vault.records import mask


class BatchSerializer(serializers.ModelSerializer):
    class Meta:
        model = Batch
        fields = ["id", "uuid", "batched_at"]


class SettlementSerializer(serializers.ModelSerializer):
    class Meta:
        model = Settlement
        fields = ["id", "uuid", "processed_at", "settlement_date"]


class ReturnSerializer(serializers.ModelSerializer):
    class Meta:
        model = TransactionReturn
        fields = ["return_code", "return_reason", "returned_at"]


class ChangeSerializer(serializers.ModelSerializer):
    class Meta:
        model = ChangeNotice
        fields = ["change_code", "change_reason", "changed_at", "noc_received_at"]


class HoldSerializer(serializers.ModelSerializer):
    class Meta:
        model = TransactionHold
        fields = ["hold_code", "hold_reason", "released_at"]


class ExceptionSerializer(serializers.ModelSerializer):
    class Meta:
        model = TransactionException
        fields = ["reject_reason", "rejected_at", "restored_at", "acknowledged_at"]


class DefaultRowSerializer(serializers.ModelSerializer):
    company_name = serializers.CharField(source="company.name")
    account_number = serializers.SerializerMethodField()
    batch_id = serializers.IntegerField()
    settlement = SettlementSerializer()

    class Meta:
        model = Transaction
        fields = ["id", "company_name", "uuid", "amount", "type", "method", "status", "name", "account_number",
                  "effective_date", "created_at", "is_same_day", "sequence_uuid", "historical_id", "reversed_at",
                  "reversal_uuid", "late_returned_at", "sale_at", "batch_id", "settlement"]  # fmt: skip

    def get_account_number(self, txn: Transaction) -> str | None:
        return mask(txn.account_last_four) if txn.account_last_four else None


class WideRowSerializer(DefaultRowSerializer):
    company_uuid = serializers.UUIDField(source="company.uuid")
    batch = BatchSerializer()
    late_return_settlement = SettlementSerializer()
    return_entry = ReturnSerializer()
    change_notice = ChangeSerializer()
    hold = HoldSerializer()
    exception = ExceptionSerializer()

    class Meta(DefaultRowSerializer.Meta):
        fields = [*DefaultRowSerializer.Meta.fields, "company_uuid", "account_type", "routing_number",
                  "standard_entry_class_code", "external_unique_id", "is_duplicate", "rtp_transaction_id",
                  "trace_number", "expected_to_settle_at", "card_first_six", "card_last_four", "card_masked",
                  "authorized_at", "auth_response_code", "captured_at", "description", "failure_reason",
                  "idempotency_key", "ingestion_file_id", "batch", "late_return_settlement", "return_entry",
                  "change_notice", "hold", "exception"]  # fmt: skip


class CharInFilter(django_filters.BaseInFilter, django_filters.CharFilter):
    pass


class NaiveTransactionFilter(django_filters.FilterSet):
    status__in = CharInFilter(field_name="status", lookup_expr="in")
    return_entry__isnull = django_filters.BooleanFilter(field_name="return_entry", lookup_expr="isnull")
    batch__isnull = django_filters.BooleanFilter(field_name="batch", lookup_expr="isnull")
    account_number = django_filters.CharFilter(method="filter_account_number")

    class Meta:
        model = Transaction
        fields = {
            "amount": ["exact", "gt", "lt"],
            "type": ["exact"],
            "method": ["exact"],
            "status": ["exact"],
            "created_at": ["gt", "lt"],
            "name": ["icontains"],
        }

    def filter_account_number(self, queryset, name, value):
        return queryset.filter(account_number_hash=crypto.account_number_hash(value))


class NaivePagination(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 1000


class NaiveTransactionList(generics.ListAPIView):
    """`wide=1` serializes every lifecycle group through nested serializers (the all-columns query)."""

    filterset_class = NaiveTransactionFilter
    filter_backends = [django_filters.rest_framework.DjangoFilterBackend, OrderingFilter]
    ordering_fields = ["id", "created_at", "amount"]
    ordering = ["-id"]
    pagination_class = NaivePagination

    def wide(self) -> bool:
        return self.request.query_params.get("wide") == "1"

    def get_serializer_class(self):
        return WideRowSerializer if self.wide() else DefaultRowSerializer

    def get_queryset(self):
        related = ["company", "settlement"]
        if self.wide():
            related += ["batch", "late_return_settlement", "return_entry", "change_notice", "hold", "exception"]
        return Transaction.objects.filter(company=self.request.company).select_related(*related)


class FloorPaymentDetailsSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=255)
    accountType = serializers.ChoiceField(choices=["Checking", "Savings"])
    accountNumber = serializers.RegexField(r"^\d{4,17}$")
    routingNumber = serializers.RegexField(r"^\d{9}$")


class FloorChargeSerializer(serializers.Serializer):
    paymentDetails = FloorPaymentDetailsSerializer()
    method = serializers.ChoiceField(choices=Method.choices)
    type = serializers.ChoiceField(choices=TransactionType.choices)
    amount = serializers.IntegerField(min_value=1, max_value=10**11)
    customerUuid = serializers.UUIDField(required=False)  # a one-off charge sends neither
    paymentMethodUuid = serializers.UUIDField(required=False)


class FloorCharge(APIView):
    def put(self, request):
        body = FloorChargeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        txn = Transaction.objects.create(
            company=request.company,
            method=data["method"],
            type=data["type"],
            amount=data["amount"],
            effective_date=timezone.localdate(),
        )
        return Response({"uuid": str(txn.uuid)}, status=status.HTTP_201_CREATED)


class Empty(APIView):
    def get(self, request):
        return Response({})


# The route names are the service's, so the same action permission (ROUTE_ACTIONS) applies.
class UnthrottledCharge(TransactionCreateView):
    throttle_classes = ()


urlpatterns = [
    path("bench/naive/transactions", NaiveTransactionList.as_view(), name="reporting-transactions"),
    path("bench/floor/transactions", FloorCharge.as_view(), name="transaction-create"),
    path("bench/unthrottled/transactions", UnthrottledCharge.as_view(), name="transaction-create"),
    path("bench/empty", Empty.as_view(), name="reporting-transactions"),
    path("", include("config.urls")),
]

handler400, handler403, handler404, handler500 = (
    "vault.views.bad_request",
    "vault.views.permission_denied",
    "vault.views.not_found",
    "vault.views.server_error",
)
