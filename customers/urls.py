from django.urls import path

from customers.views import CustomerDetailView, CustomerListView

urlpatterns = [
    path("customers", CustomerListView.as_view(), name="customer-list"),
    path("customers/<uuid:customer_uuid>", CustomerDetailView.as_view(), name="customer-detail"),
]
