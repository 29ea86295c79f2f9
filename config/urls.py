"""Root URLs: the apps' routes, auth, admin and the OpenAPI schema."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from vault.views import api_guide, redoc_bundle, service_index

urlpatterns = [
    path("", service_index, name="service-index"),
    path("auth/", include("accounts.urls")),
    path("", include("customers.urls")),
    path("", include("payments.urls")),
    path("", include("transactions.urls")),
    path("", include("transactions.risk.urls")),
    path("", include("transactions.sandbox.urls")),
    path("", include("transactions.mandates.urls")),
    path("", include("schedules.urls")),
    path("", include("ledger.urls")),
    path("", include("reporting.urls")),
    path("", include("events.urls")),
    path("", include("monitoring.urls")),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/guide/", api_guide, name="api-guide"),
    path("api/guide/<slug:name>/", api_guide, name="api-guide-page"),
    path("api/redoc-dist/bundles/redoc.standalone.js", redoc_bundle, name="redoc-bundle"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema", template_name="vault/redoc.html"), name="redoc"),
]

handler400 = "vault.views.bad_request"
handler403 = "vault.views.permission_denied"
handler404 = "vault.views.not_found"
handler500 = "vault.views.server_error"
