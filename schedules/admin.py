"""Support and Risk see schedules read-only (terms, status, the debits made); the one change is stop, with a reason,
as the payer may ask support to end their debits. Schedules are never added or deleted here: the merchant makes them
through the API."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm

from schedules.models import Schedule, ScheduledDebit
from schedules.services import schedule_stop
from vault.admin_figures import LegibleFiguresMixin
from vault.admin_scoping import CompanyScopedAdminMixin, ExactUuidSearchMixin


class StopActionForm(ActionForm):
    reason = forms.CharField(
        required=False, max_length=200, label="Reason (for stop)", widget=forms.TextInput(attrs={"size": 40})
    )


class ScheduledDebitInline(admin.TabularInline):
    model = ScheduledDebit
    fields = readonly_fields = ("date", "transaction")
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Schedule)
class ScheduleAdmin(LegibleFiguresMixin, CompanyScopedAdminMixin, ExactUuidSearchMixin, admin.ModelAdmin):
    action_form = StopActionForm
    actions = ("stop_selected",)
    money_fields = ("amount",)
    list_display = ("uuid", "customer", "amount", "interval", "start_date", "status", "status_reason", "created_at")
    list_filter = ("status", "interval")
    list_select_related = ("customer", "company")
    uuid_search_fields = ["uuid", "mandate__uuid"]
    search_fields = ["customer__last_name", "customer__company_name", "customer__email"]
    inlines = (ScheduledDebitInline,)
    ordering = ("-created_at", "-id")

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in Schedule._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False  # the merchant makes a schedule through the API, under the payer's mandate

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # its debits point at it; stopping ends it

    def has_stop_permission(self, request) -> bool:
        return request.user.has_perm("schedules.stop_schedule")

    @admin.action(description="Stop selected schedules (give a reason)", permissions=("stop",))
    def stop_selected(self, request, queryset) -> None:
        reason = request.POST.get("reason", "").strip()
        if not reason:
            self.message_user(request, "Stopping a schedule needs a reason: nothing was stopped.", messages.ERROR)
            return
        stopped = sum(
            schedule_stop(schedule=schedule, reason=reason, by=f"admin:user:{request.user.pk}") for schedule in queryset
        )
        self.message_user(request, f"Stopped {stopped} schedule(s).", messages.SUCCESS)
