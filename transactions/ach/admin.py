"""Admin for the lifecycle records (batches, settlements, origination and imported files) and operator
actions on transactions (release holds, reject, restore, acknowledge)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME, ActionForm
from django.db.models import QuerySet
from django.template.response import TemplateResponse
from django.utils import timezone

from transactions.ach.holds import transaction_hold_release
from transactions.ach.operator_actions import (
    transaction_acknowledge,
    transaction_reject,
    transaction_restore,
)
from transactions.ach.return_admin import ParkedReturnItemInline
from transactions.models import Batch, IngestionFile, OriginationFile, Settlement, Status, Transaction
from transactions.state import Actor
from vault.admin_figures import LegibleFiguresMixin
from vault.admin_scoping import CompanyScopedAdminMixin, ReadOnlyAdminMixin, SuperuserOnlyAdminMixin
from vault.errors import ApiError
from vault.figures import dollars
from vault.records import mask

CONFIRMATION_TEMPLATE = "admin/transactions/confirm_action.html"


class TransactionActionForm(ActionForm):
    """The action bar of the transaction changelist: the sandbox simulation's code (release, reject and restore
    ask for their reason on a confirmation page)."""

    sandbox_code = forms.CharField(required=False, max_length=3, label="Sandbox code (R01, C01)")


class ReasonForm(forms.Form):
    """The confirmation page of a money-moving action: the operator says why; the reason goes on the trail."""

    reason = forms.CharField(max_length=255, widget=forms.Textarea(attrs={"rows": 3, "cols": 70}))


def _confirmation(modeladmin, request, queryset: QuerySet[Transaction], *, action: str, verb: str):
    """(reason, None) once the operator confirmed with a reason; (None, page) until then: the page lists the
    selected transactions with their count and total, and asks for the reason."""
    form = ReasonForm(request.POST if request.POST.get("post") == "yes" else None)
    if form.is_bound and form.is_valid():
        return form.cleaned_data["reason"].strip(), None
    rows = list(
        queryset.select_related(None)
        .select_related("return_entry", "hold")
        .only("pk", "uuid", "status", "method", "type", "amount", "return_entry", "hold")
    )
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": f"{verb.capitalize()} {len(rows)} transaction(s)?",
        "opts": modeladmin.model._meta,
        "action": action,
        "verb": verb,
        "rows": [(txn, dollars(txn.amount), why_held_or_returned(txn, in_words=True)) for txn in rows],
        "total": dollars(sum(txn.amount or 0 for txn in rows)),
        "form": form,
        "action_checkbox_name": ACTION_CHECKBOX_NAME,
    }
    return None, TemplateResponse(request, CONFIRMATION_TEMPLATE, context)


def why_held_or_returned(txn: Transaction, *, in_words: bool = False) -> str:
    """A return's or an unreleased hold's code (a list column), or with `in_words` its reason too (a confirmation
    page), for newcomer review 2026-12-02 N10; reads `return_entry` and `hold`, best selected with the transaction."""
    if returned := getattr(txn, "return_entry", None):
        return f"Returned {returned.return_code}: {returned.return_reason}" if in_words else returned.return_code
    if (held := getattr(txn, "hold", None)) and held.released_at is None:
        return f"Held ({held.hold_code}): {held.hold_reason}" if in_words else f"Held {held.hold_code}"
    return "-"


def apply_to_selected(modeladmin, request, queryset, verb: str, service, refusal=None) -> None:
    """Run `service(txn, at)` on each selected transaction and report what changed. A service says no either
    by raising ApiError (its message is shown) or by returning False (`refusal(txn)` is shown)."""
    at, done, refused = timezone.now(), 0, []
    for txn in queryset.select_related(None).only("pk", "uuid", "company_id", "status"):
        try:
            changed = service(txn, at)
        except ApiError as exc:
            refused.append(f"{txn.uuid}: {exc.message}")
            continue
        if changed is False:
            refused.append(refusal(txn))
        else:
            done += 1
    modeladmin.message_user(request, f"{done} transaction(s) {verb}.", messages.SUCCESS)
    if refused:
        modeladmin.message_user(request, "Not changed: " + "; ".join(refused), messages.WARNING)


def _confirmed_action(*, name: str, description: str, permission: str, verb: str, done: str, service, refusal=None):
    """A money-moving admin action: a confirmation page first (count, total, a reason), then
    `service(txn=, actor=, at=, reason=)` on each selected transaction."""

    @admin.action(description=description, permissions=[permission])
    def action(modeladmin, request, queryset: QuerySet[Transaction]):
        reason, page = _confirmation(modeladmin, request, queryset, action=name, verb=verb)
        if page is not None:
            return page
        actor = Actor.admin(request.user)
        apply_to_selected(
            modeladmin,
            request,
            queryset,
            done,
            lambda txn, at: service(txn=txn, actor=actor, at=at, reason=reason),
            refusal,
        )
        return None

    action.__name__ = name
    return action


release_holds = _confirmed_action(
    name="release_holds",
    description="Release selected holds (Held to Pending)...",
    permission="release_hold",
    verb="release",
    done="released",
    service=transaction_hold_release,
    # A debit whose mandate is no longer active is voided instead (transactions.ach.holds), and says why.
    refusal=lambda txn: f"{txn.uuid} is {txn.status}"
    + (f" ({txn.failure_reason})" if txn.status == Status.VOIDED else ""),
)
reject_transactions = _confirmed_action(
    name="reject_transactions",
    description="Reject selected transactions...",
    permission="reject_transaction",
    verb="reject",
    done="rejected",
    service=transaction_reject,
)
restore_transactions = _confirmed_action(
    name="restore_transactions",
    description="Restore selected rejected transactions (back to Pending)...",
    permission="restore_transaction",
    verb="restore",
    done="restored",
    service=transaction_restore,
)


@admin.action(
    description="Mark selected transactions as seen by support (noted on their trail)",
    permissions=["acknowledge_exception"],
)
def acknowledge_transactions(modeladmin, request, queryset: QuerySet[Transaction]) -> None:
    apply_to_selected(
        modeladmin,
        request,
        queryset,
        "acknowledged",
        lambda txn, at: transaction_acknowledge(txn=txn, actor=Actor.admin(request.user), at=at),
        refusal=lambda txn: f"{txn.uuid} was already acknowledged",
    )


# Admin actions the transaction admin offers; transactions/admin.py includes them with the mixin below.
TRANSACTION_ACTIONS: list = [release_holds, reject_transactions, restore_transactions, acknowledge_transactions]


def _has_transaction_permission(codename: str):
    def check(self, request) -> bool:
        return request.user.has_perm(f"transactions.{codename}")

    return check


class TransactionActionPermissionsMixin:
    """`has_<name>_permission` for each action's `permissions=[name]`: Django offers and runs an action only for
    a user holding its custom model permission (Transaction.Meta.permissions), never for view alone."""

    has_release_hold_permission = _has_transaction_permission("release_hold")
    has_reject_transaction_permission = _has_transaction_permission("reject_transaction")
    has_restore_transaction_permission = _has_transaction_permission("restore_transaction")
    has_acknowledge_exception_permission = _has_transaction_permission("acknowledge_exception")
    has_simulate_sandbox_permission = _has_transaction_permission("simulate_sandbox")


class MaskedAccountMixin:
    """The `masked_account` column: a bank account's last four, or a card's masked number."""

    @admin.display(description="account")
    def masked_account(self, obj: Transaction) -> str:
        if obj.account_last_four:
            return mask(obj.account_last_four)
        return obj.card_masked or "-"


class ReadOnlyAdmin(LegibleFiguresMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Lifecycle records are written by the ops commands only."""

    money_fields = ("debit_total", "credit_total", "net_amount")


class TransactionInline(MaskedAccountMixin, LegibleFiguresMixin, ReadOnlyAdminMixin, admin.TabularInline):
    model = Transaction
    fields = ("id", "uuid", "status", "type", "amount", "trace_number", "masked_account", "effective_date")
    readonly_fields = fields
    money_fields = ("amount",)
    show_change_link = True
    extra = 0
    can_delete = False
    ordering = ("id",)

    def get_queryset(self, request):
        # Never decrypt account numbers for a listing.
        return super().get_queryset(request).defer("account_number")


class SettledTransactionInline(TransactionInline):
    fk_name = "settlement"
    verbose_name_plural = "settled transactions"


class LateReturnTransactionInline(TransactionInline):
    fk_name = "late_return_settlement"
    verbose_name_plural = "late returns"


class BatchInline(LegibleFiguresMixin, ReadOnlyAdminMixin, admin.TabularInline):
    model = Batch
    money_fields = ("debit_total", "credit_total")
    fields = (
        "id",
        "uuid",
        "company",
        "standard_entry_class_code",
        "batch_number",
        "entry_count",
        "debit_total",
        "credit_total",
    )
    readonly_fields = fields
    show_change_link = True
    extra = 0
    can_delete = False


class FileWrittenFilter(admin.SimpleListFilter):
    """Exceptions: a batch whose NACHA file was never written does not settle until `originate` writes it."""

    title = "NACHA file"
    parameter_name = "file"

    def lookups(self, request, model_admin):
        return [("written", "written"), ("unwritten", "not written (exception)")]

    def queryset(self, request, queryset):
        if self.value() == "unwritten":
            return queryset.filter(origination_file__sha256="")
        if self.value() == "written":
            return queryset.exclude(origination_file__sha256="")
        return queryset


@admin.display(boolean=True, description="file written")
def file_written(obj: Batch | OriginationFile) -> bool:
    origination_file = obj if isinstance(obj, OriginationFile) else obj.origination_file
    return bool(origination_file and origination_file.sha256)


@admin.register(Batch)
class BatchAdmin(CompanyScopedAdminMixin, ReadOnlyAdmin):
    list_display = (
        "id",
        "uuid",
        "company",
        "standard_entry_class_code",
        "effective_date",
        "batched_at",
        "entry_count",
        "debit_total",
        "credit_total",
        "origination_file",
        file_written,
    )
    list_filter = (FileWrittenFilter, "standard_entry_class_code", "effective_date")
    list_select_related = ("company", "origination_file")
    search_fields = ("=uuid", "company__name")
    raw_id_fields = ("company", "origination_file")
    date_hierarchy = "batched_at"
    inlines = [TransactionInline]


@admin.register(Settlement)
class SettlementAdmin(CompanyScopedAdminMixin, ReadOnlyAdmin):
    list_display = (
        "id",
        "uuid",
        "company",
        "kind",
        "settlement_date",
        "processed_at",
        "transaction_count",
        "net_amount",
    )
    list_filter = ("kind", "settlement_date")
    list_select_related = ("company",)
    search_fields = ("=uuid", "company__name")
    raw_id_fields = ("company",)
    date_hierarchy = "processed_at"
    inlines = [SettledTransactionInline, LateReturnTransactionInline]


@admin.register(OriginationFile)
class OriginationFileAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdmin):
    """An ACH file carries the batches of every company in its window: operators (superusers) only."""

    list_display = (
        "id",
        "uuid",
        "window_at",
        "file_id_modifier",
        "building",
        "path",
        file_written,
        "sha256",
        "batch_count",
        "entry_count",
        "debit_total",
        "credit_total",
        "created_at",
    )
    list_filter = (("sha256", admin.EmptyFieldListFilter),)
    search_fields = ("=uuid", "path", "=sha256")
    date_hierarchy = "created_at"
    inlines = [BatchInline]


@admin.register(IngestionFile)
class IngestionFileAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdmin):
    """A return file from the bank holds entries of every company: operators (superusers) only."""

    list_display = ("id", "uuid", "filename", "file_format", "applying", "received_at", "sha256")
    list_filter = ("file_format", "applying")
    search_fields = ("=uuid", "filename", "=sha256")
    date_hierarchy = "received_at"
    inlines = [TransactionInline, ParkedReturnItemInline]
