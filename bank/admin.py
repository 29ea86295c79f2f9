"""The bank files in the back office: each outbound file's way to the bank (attempts, last error, the bank's
answer) and each file fetched from it. A file carries every company's entries: operators (superusers) only."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.utils import timezone

from bank.models import BankFile, InboundFile
from bank.services import ResendRefused, bank_file_resend
from vault.admin_scoping import ReadOnlyAdminMixin, SuperuserOnlyAdminMixin


@admin.register(BankFile)
class BankFileAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "name",
        "status",
        "attempts",
        "last_error",
        "last_attempt_at",
        "transmitted_at",
        "answered_at",
        "rejected_reason",
        "resent_as",
    )
    list_filter = ("status",)
    list_select_related = ("resent_as",)
    search_fields = ("name", "=uuid")
    raw_id_fields = ("origination_file",)
    readonly_fields = ("uuid", "origination_file", "name", "resent_as", "created_at")
    date_hierarchy = "created_at"
    actions = ["send_again"]

    @admin.action(description="Send the selected rejected files again (new file id modifier, same entries)")
    def send_again(self, request, queryset: QuerySet[BankFile]) -> None:
        for bank_file in queryset.order_by("pk"):
            try:
                resent = bank_file_resend(bank_file=bank_file, at=timezone.now())
            except ResendRefused as exc:
                self.message_user(request, str(exc), level=messages.ERROR)
                continue
            self.message_user(request, f"{bank_file.name}: its entries go out again as {resent.name}")


@admin.register(InboundFile)
class InboundFileAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("name", "kind", "state", "received_at", "applied_at", "error", "sha256")
    list_filter = ("kind", "state")
    search_fields = ("name", "=sha256")
    date_hierarchy = "received_at"
