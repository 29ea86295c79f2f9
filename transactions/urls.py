"""Charge routes; names are the keys of accounts.actions.ROUTE_ACTIONS."""

from __future__ import annotations

from django.urls import path

from transactions.views import (
    TransactionCreateView,
    TransactionDetailView,
    TransactionEventsView,
    TransactionReverseView,
    TransactionVoidView,
)

urlpatterns = [
    path("transactions", TransactionCreateView.as_view(), name="transaction-create"),
    path("transactions/<uuid:transaction_uuid>", TransactionDetailView.as_view(), name="transaction-detail"),
    path("transactions/<uuid:transaction_uuid>/void", TransactionVoidView.as_view(), name="transaction-void"),
    path("transactions/<uuid:transaction_uuid>/events", TransactionEventsView.as_view(), name="transaction-events"),
    path("transactions/<uuid:transaction_uuid>/reverse", TransactionReverseView.as_view(), name="transaction-reverse"),
]
