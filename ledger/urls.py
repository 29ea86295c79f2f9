from django.urls import path

from ledger.views import BalanceView

urlpatterns = [path("balance", BalanceView.as_view(), name="balance")]
