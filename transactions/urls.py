"""Charge routes; names are the keys of accounts.actions.ROUTE_ACTIONS."""

from __future__ import annotations

from django.urls import path

from transactions.charges.retry_views import RetryPolicyView
from transactions.charges.views import (
    TransactionCreateView,
    TransactionDetailView,
    TransactionEventsView,
    TransactionRefundView,
    TransactionRetryView,
    TransactionReverseView,
    TransactionVoidView,
)
from transactions.risk.validation_views import PaymentMethodValidateConfirmView, PaymentMethodValidateView

# Account validation sends entries, so its routes live with the transactions (apps import downward only).
METHOD = "customers/<uuid:customer_uuid>/payment-methods/<uuid:payment_method_uuid>"

urlpatterns = [
    path("transactions", TransactionCreateView.as_view(), name="transaction-create"),
    path("transactions/<uuid:transaction_uuid>", TransactionDetailView.as_view(), name="transaction-detail"),
    path("transactions/<uuid:transaction_uuid>/void", TransactionVoidView.as_view(), name="transaction-void"),
    path("transactions/<uuid:transaction_uuid>/events", TransactionEventsView.as_view(), name="transaction-events"),
    path("transactions/<uuid:transaction_uuid>/reverse", TransactionReverseView.as_view(), name="transaction-reverse"),
    path("transactions/<uuid:transaction_uuid>/refund", TransactionRefundView.as_view(), name="transaction-refund"),
    path("transactions/<uuid:transaction_uuid>/retry", TransactionRetryView.as_view(), name="transaction-retry"),
    path("settings/retry-policy", RetryPolicyView.as_view(), name="retry-policy"),
    path(f"{METHOD}/validate", PaymentMethodValidateView.as_view(), name="payment-method-validate"),
    path(
        f"{METHOD}/validate/confirm",
        PaymentMethodValidateConfirmView.as_view(),
        name="payment-method-validate-confirm",
    ),
]
