"""Back-office tenant isolation shared by every app's admin: a staff user sees the rows of the companies they
are a member of; a superuser sees all. Platform-wide records (roles, the live action group, ACH files that mix
companies) are for superusers only."""

from __future__ import annotations

import uuid

from django.db.models import Q, QuerySet


def companies_visible_to(user) -> QuerySet | None:
    """None means every company (superuser); otherwise the ids of the companies the user is a member of."""
    if user.is_superuser:
        return None
    return user.memberships.values("company_id")


def is_uuid(term: str) -> bool:
    try:
        uuid.UUID(term)
    except ValueError:
        return False
    return True


class CompanyScopedAdminMixin:
    """Rows outside the staff user's companies are not listed, not searchable and 404 on their pages
    (Django's admin resolves every object through get_queryset)."""

    company_lookup = "company_id"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        companies = companies_visible_to(request.user)
        return queryset if companies is None else queryset.filter(**{f"{self.company_lookup}__in": companies})


class SuperuserOnlyAdminMixin:
    """Records that span every company: hidden from staff users whatever model permissions they hold."""

    def has_module_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser and super().has_view_permission(request, obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser and super().has_change_permission(request, obj)

    def has_add_permission(self, request, *args) -> bool:
        return request.user.is_active and request.user.is_superuser and super().has_add_permission(request, *args)

    def has_delete_permission(self, request, obj=None) -> bool:
        return request.user.is_active and request.user.is_superuser and super().has_delete_permission(request, obj)


class ReadOnlyAdminMixin:
    """Written by the API, the ops commands or admin actions only: never through the change form."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ExactUuidSearchMixin:
    """A pasted uuid matches exactly; substring search over uuids would match almost any short hex word."""

    uuid_search_fields: list[str] = []

    def get_search_results(self, request, queryset, search_term):
        searched, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if not is_uuid(term):
            return searched, may_have_duplicates
        matches = Q()
        for field in self.uuid_search_fields:
            matches |= Q(**{field: uuid.UUID(term)})
        return searched | queryset.filter(matches), may_have_duplicates
