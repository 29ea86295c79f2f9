from django.urls import path

from payments.views import (
    PaymentMethodCreateView,
    PaymentMethodDetailView,
    PaymentMethodListView,
    PaymentMethodSetDefaultView,
)

METHOD = "customers/<uuid:customer_uuid>/payment-methods/<uuid:payment_method_uuid>"

urlpatterns = [
    path("customers/payment-methods", PaymentMethodCreateView.as_view(), name="payment-method-create"),
    path("customers/<uuid:customer_uuid>/payment-methods", PaymentMethodListView.as_view(), name="payment-method-list"),
    path(METHOD, PaymentMethodDetailView.as_view(), name="payment-method-detail"),
    path(f"{METHOD}/set-default", PaymentMethodSetDefaultView.as_view(), name="payment-method-set-default"),
]
