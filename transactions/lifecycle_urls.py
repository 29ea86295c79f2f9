"""Routes of the transaction lifecycle (reversal)."""

from __future__ import annotations

from django.urls import path

from transactions.lifecycle_views import TransactionReverseView

urlpatterns = [
    path("transactions/<uuid:transaction_uuid>/reverse", TransactionReverseView.as_view(), name="transaction-reverse"),
]
