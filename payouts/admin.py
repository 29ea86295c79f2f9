"""The payout account for staff (CONTRACT 18): read-only and masked (last four only), every version of it, newest
first, so a change (an account takeover's first move) is in plain sight with who made it."""

from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from payouts.models import PayoutAccount
from payouts.selectors import payout_account_history, payout_account_standing
from vault.admin_scoping import CompanyScopedAdminMixin, ExactUuidSearchMixin, ReadOnlyAdminMixin
from vault.records import mask


@admin.register(PayoutAccount)
class PayoutAccountAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, ExactUuidSearchMixin, admin.ModelAdmin):
    list_display = ["display_name", "company", "holder_name", "status", "created_at", "created_by", "replaced_at"]
    list_filter = [("company", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["company__name", "holder_name", "last_four"]
    uuid_search_fields = ["uuid"]
    list_select_related = ["company"]
    fields = [
        "uuid",
        "company",
        "display_name",
        "routing_number",
        "account_type",
        "holder_name",
        "holder_type",
        "status",
        "cooldown_ends_at",
        "blocked_at",
        "blocked_reason",
        "created_at",
        "created_by",
        "replaced_at",
        "history",
    ]
    readonly_fields = fields
    ordering = ["-created_at", "-id"]

    @admin.display(description="status")
    def status(self, obj: PayoutAccount) -> str:
        if obj.replaced_at is not None:
            return "replaced"
        return payout_account_standing(obj, at=timezone.now()).status

    @admin.display(description="history (newest first)")
    def history(self, obj: PayoutAccount) -> str:
        return "; ".join(
            f"{mask(version.last_four)} {version.routing_number} from {version.created_at:%Y-%m-%d %H:%M} UTC"
            f" by {version.created_by or '-'}"
            for version in payout_account_history(company=obj.company)
        )
