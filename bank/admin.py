"""The bank files in the back office: each outbound file's way to the bank (attempts, last error, the bank's
answer) and each file fetched from it. A file carries every company's entries: operators (superusers) only."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.utils import timezone

from bank.models import BankFile, InboundFile
from bank.services import (
    AnswerRefused,
    ResendRefused,
    bank_file_answer_decide,
    bank_file_at_bank,
    bank_file_resend,
    bank_file_send_outside,
    inbound_files_set_aside,
)
from vault.admin_scoping import ReadOnlyAdminMixin, SuperuserOnlyAdminMixin


@admin.register(BankFile)
class BankFileAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "name",
        "status",
        "attempts",
        "last_error",
        "last_attempt_at",
        "renamed_at",
        "transmitted_at",
        "answered_at",
        "rejected_reason",
        "exception",
        "resent_as",
    )
    list_filter = ("status",)
    list_select_related = ("resent_as",)
    search_fields = ("name", "=uuid")
    raw_id_fields = ("origination_file",)
    readonly_fields = ("uuid", "origination_file", "name", "resent_as", "created_at")
    date_hierarchy = "created_at"
    actions = ["send_again", "bank_accepted", "bank_rejected", "send_outside", "bank_has_it", "bank_has_not"]

    @admin.action(description="Send the selected rejected files again (new file id modifier, same entries)")
    def send_again(self, request, queryset: QuerySet[BankFile]) -> None:
        for bank_file in queryset.order_by("pk"):
            try:
                resent = bank_file_resend(bank_file=bank_file, at=timezone.now())
            except ResendRefused as exc:
                self.message_user(request, str(exc), level=messages.ERROR)
                continue
            self.message_user(request, f"{bank_file.name}: its entries go out again as {resent.name}")

    @admin.action(description="Send the selected outside files through the bank connection (next transmit_files)")
    def send_outside(self, request, queryset: QuerySet[BankFile]) -> None:
        for bank_file in queryset.order_by("pk"):
            try:
                bank_file_send_outside(bank_file=bank_file)
            except ResendRefused as exc:
                self.message_user(request, str(exc), level=messages.ERROR)
                continue
            self.message_user(request, f"{bank_file.name} goes to the bank with the next transmit_files")

    def _at_bank(self, request, queryset: QuerySet[BankFile], *, has_it: bool) -> None:
        for bank_file in queryset.order_by("pk"):
            try:
                done = bank_file_at_bank(bank_file=bank_file, has_it=has_it, at=timezone.now())
            except ResendRefused as exc:
                self.message_user(request, str(exc), level=messages.ERROR)
                continue
            self.message_user(request, f"{done.name} is {done.status}")

    @admin.action(description="Renamed, then gone from the server: the bank confirmed it HAS the selected files")
    def bank_has_it(self, request, queryset: QuerySet[BankFile]) -> None:
        self._at_bank(request, queryset, has_it=True)

    @admin.action(description="Renamed, then gone from the server: the bank confirmed it has NOT (send them again)")
    def bank_has_not(self, request, queryset: QuerySet[BankFile]) -> None:
        self._at_bank(request, queryset, has_it=False)

    def _decide(self, request, queryset: QuerySet[BankFile], *, accepted: bool) -> None:
        for bank_file in queryset.order_by("pk"):
            try:
                decided = bank_file_answer_decide(bank_file=bank_file, accepted=accepted, at=timezone.now())
            except AnswerRefused as exc:
                self.message_user(request, str(exc), level=messages.ERROR)
                continue
            self.message_user(request, f"{decided.name} is now {decided.status}")

    @admin.action(description="Exceptions: the bank confirmed it ACCEPTED the selected files (their entries settle)")
    def bank_accepted(self, request, queryset: QuerySet[BankFile]) -> None:
        self._decide(request, queryset, accepted=True)

    @admin.action(description="Exceptions: the bank confirmed it REJECTED the selected files (send them again after)")
    def bank_rejected(self, request, queryset: QuerySet[BankFile]) -> None:
        self._decide(request, queryset, accepted=False)


@admin.register(InboundFile)
class InboundFileAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("name", "kind", "state", "received_at", "applied_at", "error", "sha256")
    list_filter = ("kind", "state")
    search_fields = ("name", "=sha256")
    date_hierarchy = "received_at"
    actions = ["set_aside"]

    @admin.action(description="Set aside the selected refused files (settled with the bank; never read again)")
    def set_aside(self, request, queryset: QuerySet[InboundFile]) -> None:
        names = list(queryset.values_list("name", flat=True))
        count = inbound_files_set_aside(names=names, at=timezone.now())
        self.message_user(request, f"{count} refused file(s) set aside; only refused files can be")
