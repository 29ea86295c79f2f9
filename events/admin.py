"""Back office for webhooks: endpoints (the `needs attention` flag for ones the platform disabled), events with
every delivery attempt. Scoped to the staff user's companies; secrets never shown."""

from __future__ import annotations

from django.contrib import admin

from events.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint
from vault.admin_scoping import CompanyScopedAdminMixin, ExactUuidSearchMixin, ReadOnlyAdminMixin


class AttemptInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = DeliveryAttempt
    fk_name = "event"
    fields = ["endpoint", "attempted_at", "status_code", "duration_ms", "error"]
    readonly_fields = fields
    extra = 0
    ordering = ["attempted_at", "id"]

    def has_view_permission(self, request, obj=None) -> bool:
        return True


class DeliveryInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Delivery
    fields = ["endpoint", "status", "attempt_count", "next_attempt_at", "delivered_at"]
    readonly_fields = fields
    extra = 0

    def has_view_permission(self, request, obj=None) -> bool:
        return True


@admin.register(Event)
class EventAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, ExactUuidSearchMixin, admin.ModelAdmin):
    list_display = ["type", "object_uuid", "sequence", "company", "created_at"]
    list_filter = ["type", ("company", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["type"]
    uuid_search_fields = ["uuid", "object_uuid"]
    list_select_related = ["company"]
    fields = ["uuid", "company", "type", "object_uuid", "sequence", "created_at", "data"]
    readonly_fields = fields
    inlines = [DeliveryInline, AttemptInline]
    ordering = ["-id"]


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, ExactUuidSearchMixin, admin.ModelAdmin):
    list_display = ["url", "company", "enabled", "needs_attention", "disabled_reason", "failing_since", "created_at"]
    list_filter = ["enabled", "needs_attention", ("company", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["url", "description"]
    uuid_search_fields = ["uuid"]
    list_select_related = ["company"]
    fields = [
        "uuid",
        "company",
        "url",
        "description",
        "event_types",
        "enabled",
        "needs_attention",
        "failing_since",
        "disabled_at",
        "disabled_reason",
        "created_at",
        "deleted_at",
    ]
    readonly_fields = fields
    ordering = ["-created_at", "-id"]


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ["event", "endpoint", "attempted_at", "status_code", "duration_ms", "error"]
    list_filter = ["status_code", ("company", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["event", "endpoint"]
    raw_id_fields = ["event", "endpoint", "delivery"]
    fields = ["event", "endpoint", "delivery", "attempted_at", "status_code", "duration_ms", "error"]
    readonly_fields = fields
    ordering = ["-attempted_at", "-id"]
