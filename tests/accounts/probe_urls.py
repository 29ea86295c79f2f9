"""Test-only URLconf: the auth routes plus probe views for the permission class and the error handlers."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from rest_framework.response import Response
from rest_framework.views import APIView


class WhoAmIView(APIView):
    """Echoes what the permission class resolved: the acting company and the route's action."""

    def get(self, request):
        return Response({"companyUuid": str(request.company.uuid), "action": request.action})


class ExplodingApiView(APIView):
    public = True
    authentication_classes: list = []
    permission_classes: list = []

    def get(self, request):
        raise RuntimeError("secret internals /srv/app.py line 42")


def exploding_django_view(request):
    raise RuntimeError("secret internals /srv/app.py line 42")


urlpatterns = [
    path("auth/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    # Registered under a name that is in ROUTE_ACTIONS (GET -> ViewReports), so real permission rules apply.
    path("probe/reports", WhoAmIView.as_view(), name="reporting-transactions"),
    # A route missing from ROUTE_ACTIONS: must be refused to every caller.
    path("probe/unlisted", WhoAmIView.as_view(), name="probe-unlisted"),
    path("probe/boom", ExplodingApiView.as_view(), name="probe-boom"),
    path("probe/django-boom", exploding_django_view, name="probe-django-boom"),
]

handler404 = "vault.views.not_found"
handler500 = "vault.views.server_error"
