from django.urls import path

from transactions.mandates.views import (
    MandateDetailView,
    MandateEvidenceView,
    MandateListView,
    MandateProofView,
    MandateRevokeView,
)

urlpatterns = [
    path("customers/<uuid:customer_uuid>/mandates", MandateListView.as_view(), name="mandate-list"),
    path("mandates/<uuid:mandate_uuid>", MandateDetailView.as_view(), name="mandate-detail"),
    path("mandates/<uuid:mandate_uuid>/revoke", MandateRevokeView.as_view(), name="mandate-revoke"),
    path("mandates/<uuid:mandate_uuid>/proof", MandateProofView.as_view(), name="mandate-proof"),
    path("mandates/<uuid:mandate_uuid>/proof/evidence", MandateEvidenceView.as_view(), name="mandate-proof-evidence"),
]
