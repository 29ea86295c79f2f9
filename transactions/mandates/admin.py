"""Support sees mandates read-only (the wording, its hash, the acceptance evidence); the one change is revoke, with a
reason, as the payer may ask support to stop their debits: it voids the debits not yet sent under it, as the route
does (transactions.charges.revocation), so the page is a door of transactions. Mandates are never added or deleted
here."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm

from mandates.errors import MandateNotActive
from mandates.models import Mandate
from transactions.charges.revocation import mandate_revoke_stopping
from transactions.state import Actor
from vault.admin_scoping import CompanyScopedAdminMixin, ExactUuidSearchMixin


class RevokeActionForm(ActionForm):
    reason = forms.CharField(
        required=False, max_length=255, label="Reason (for revoke)", widget=forms.TextInput(attrs={"size": 40})
    )


@admin.register(Mandate)
class MandateAdmin(CompanyScopedAdminMixin, ExactUuidSearchMixin, admin.ModelAdmin):
    action_form = RevokeActionForm
    actions = ("revoke_selected",)
    list_display = ("uuid", "customer", "sec_code", "type", "channel", "status", "accepted_at", "retain_until")
    list_filter = ("status", "type", "sec_code", "channel")
    list_select_related = ("customer", "company")
    uuid_search_fields = ["uuid"]
    search_fields = ["customer__last_name", "customer__company_name", "customer__email"]
    exclude = ("evidence",)
    ordering = ("-created_at", "-id")

    def get_queryset(self, request):
        return super().get_queryset(request).defer("evidence")

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in Mandate._meta.fields if field.name != "evidence"]

    def has_add_permission(self, request) -> bool:
        return False  # a payer's authorization comes from the merchant, through the API

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # kept until retainUntil (the database refuses earlier)

    def has_revoke_permission(self, request) -> bool:
        return request.user.has_perm("mandates.revoke_mandate")

    @admin.action(description="Revoke selected mandates (give a reason)", permissions=("revoke",))
    def revoke_selected(self, request, queryset) -> None:
        reason = request.POST.get("reason", "").strip()
        if not reason:
            self.message_user(request, "A revocation needs a reason: nothing was revoked.", messages.ERROR)
            return
        revoked = 0
        for mandate in queryset:
            try:
                actor = Actor.admin(request.user)
                mandate_revoke_stopping(mandate=mandate, reason=reason, actor=actor, by=f"admin:{actor.id}")
            except MandateNotActive:
                continue
            revoked += 1
        self.message_user(request, f"Revoked {revoked} mandate(s).", messages.SUCCESS)
