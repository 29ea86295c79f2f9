from django.urls import path

from payouts.views import PayoutAccountView

urlpatterns = [
    path("settings/payout-account", PayoutAccountView.as_view(), name="payout-account"),
]
