"""Finance's reconciliation in the back office: the queue of exceptions with their age (match by hand with a
reason; write off only when a second person approves), and the statements, their lines, the expected payments
and the matches, read-only. They span companies: Finance and superusers see them, no merchant's staff."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.utils import timezone

from reconciliation.models import ExpectedPayment, Match, ReconciliationException, Statement, StatementLine
from reconciliation.services import FinanceRefused, match_by_hand, write_off_approve, write_off_ask
from vault.admin_figures import LegibleFiguresMixin
from vault.admin_scoping import ReadOnlyAdminMixin
from vault.figures import dollars


class ReasonActionForm(ActionForm):
    reason = forms.CharField(required=False, max_length=500, label="Reason", widget=forms.TextInput(attrs={"size": 50}))


@admin.register(ReconciliationException)
class ReconciliationExceptionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    action_form = ReasonActionForm
    actions = ("match_selected", "ask_write_off", "approve_write_off")
    list_display = (
        "uuid",
        "kind",
        "age_in_days",
        "day",
        "direction",
        "amount_in_dollars",
        "reference",
        "state",
        "write_off_reason",
        "write_off_asked_by",
    )
    list_filter = ("state", "kind")
    list_select_related = ("line", "expected", "write_off_asked_by")
    search_fields = ("=uuid", "line__customer_reference", "expected__reference")
    raw_id_fields = ("line", "expected", "write_off_asked_by", "write_off_approved_by")
    ordering = ("opened_at", "pk")

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("line", "expected")

    @staticmethod
    def _item(obj: ReconciliationException):
        return obj.line or obj.expected

    @admin.display(description="age (days)")
    def age_in_days(self, obj: ReconciliationException) -> int:
        return ((obj.closed_at or timezone.now()) - obj.opened_at).days

    @admin.display(description="date")
    def day(self, obj: ReconciliationException):
        return obj.line.value_date if obj.line else obj.expected.expected_on

    @admin.display(description="direction")
    def direction(self, obj: ReconciliationException) -> str:
        return self._item(obj).direction

    @admin.display(description="amount")
    def amount_in_dollars(self, obj: ReconciliationException) -> str:
        return dollars(self._item(obj).amount)

    @admin.display(description="reference")
    def reference(self, obj: ReconciliationException) -> str:
        return obj.line.customer_reference if obj.line else obj.expected.reference

    def has_match_by_hand_permission(self, request) -> bool:
        return request.user.has_perm("reconciliation.match_by_hand")

    def has_ask_write_off_permission(self, request) -> bool:
        return request.user.has_perm("reconciliation.ask_write_off")

    def has_approve_write_off_permission(self, request) -> bool:
        return request.user.has_perm("reconciliation.approve_write_off")

    @admin.action(
        description="Match the selected by hand (lines and expectations of one payment; give a reason)",
        permissions=("match_by_hand",),
    )
    def match_selected(self, request, queryset) -> None:
        try:
            match = match_by_hand(
                exceptions=list(queryset),
                user=request.user,
                reason=request.POST.get("reason", ""),
                at=timezone.now(),
            )
        except FinanceRefused as exc:
            self.message_user(request, f"Nothing matched: {exc}.", messages.ERROR)
            return
        self.message_user(request, f"Matched by hand ({match.uuid}).", messages.SUCCESS)

    @admin.action(
        description="Ask to write off the selected (give a reason; a second person approves)",
        permissions=("ask_write_off",),
    )
    def ask_write_off(self, request, queryset) -> None:
        for exception in queryset.order_by("pk"):
            try:
                write_off_ask(exception=exception, user=request.user, reason=request.POST.get("reason", ""))
            except FinanceRefused as exc:
                self.message_user(request, f"{exception.uuid}: {exc}.", messages.ERROR)
                continue
            self.message_user(request, f"{exception.uuid}: write-off asked; a second person approves it.")

    @admin.action(
        description="Approve the selected write-offs (asked by someone else)", permissions=("approve_write_off",)
    )
    def approve_write_off(self, request, queryset) -> None:
        for exception in queryset.order_by("pk"):
            try:
                write_off_approve(exception=exception, user=request.user, at=timezone.now())
            except FinanceRefused as exc:
                self.message_user(request, f"{exception.uuid}: {exc}.", messages.ERROR)
                continue
            self.message_user(request, f"{exception.uuid}: written off.", messages.SUCCESS)


class StatementLineInline(LegibleFiguresMixin, admin.TabularInline):
    model = StatementLine
    money_fields = ("amount",)
    fields = readonly_fields = (
        "position",
        "value_date",
        "direction",
        "amount",
        "type_code",
        "customer_reference",
        "bank_reference",
        "text",
        "state",
        "match",
    )
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Statement)
class StatementAdmin(LegibleFiguresMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    money_fields = ("opening_balance", "closing_balance")
    list_display = (
        "name",
        "format",
        "statement_date",
        "account_last_four",
        "opening_balance",
        "closing_balance",
        "line_count",
        "received_at",
    )
    list_filter = ("format",)
    search_fields = ("name", "=sha256")
    date_hierarchy = "statement_date"
    inlines = (StatementLineInline,)


@admin.register(StatementLine)
class StatementLineAdmin(LegibleFiguresMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    money_fields = ("amount",)
    list_display = ("value_date", "direction", "amount", "type_code", "customer_reference", "text", "state", "match")
    list_filter = ("state", "direction")
    list_select_related = ("match",)
    search_fields = ("customer_reference", "bank_reference")
    raw_id_fields = ("statement", "match")


@admin.register(ExpectedPayment)
class ExpectedPaymentAdmin(LegibleFiguresMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    money_fields = ("amount",)
    list_display = ("expected_on", "kind", "direction", "amount", "reference", "group", "state", "match")
    list_filter = ("state", "kind", "direction")
    list_select_related = ("match",)
    search_fields = ("reference", "group")
    raw_id_fields = ("origination_file", "ingestion_file", "match")


@admin.register(Match)
class MatchAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("uuid", "rule", "reason", "matched_by", "created_at")
    list_filter = ("rule",)
    list_select_related = ("matched_by",)
    search_fields = ("=uuid",)
