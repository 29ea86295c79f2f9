"""Admin for what `import_returns` recorded: returns (with the "candidate to dishonor" flag of an untimely one),
dishonored and contested dishonored returns, and the items it parked instead of applying. All read-only: the
command writes them."""

from __future__ import annotations

from django.contrib import admin

from transactions.models import DishonoredReturn, ParkedReturnItem, TransactionReturn
from vault.admin_scoping import CompanyScopedAdminMixin, ReadOnlyAdminMixin, SuperuserOnlyAdminMixin


class DishonoredReturnInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = DishonoredReturn
    fk_name = "transaction_return"
    fields = ("kind", "code", "reason", "received_at", "ingestion_file")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(TransactionReturn)
class TransactionReturnAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Returns as booked. An untimely one (received after its code's time frame) is still booked; the filter
    "candidate to dishonor" lists them for the operator, whose ODFI may dishonor them (R68)."""

    list_display = (
        "id",
        "uuid",
        "company",
        "transaction",
        "return_code",
        "return_reason",
        "returned_at",
        "due_by",
        "is_untimely",
    )
    list_filter = ("is_untimely", "return_code", "returned_at")
    list_select_related = ("company", "transaction")
    search_fields = ("=uuid", "=transaction__uuid", "=transaction__trace_number", "company__name")
    raw_id_fields = ("company", "transaction", "ingestion_file")
    date_hierarchy = "returned_at"
    inlines = [DishonoredReturnInline]

    def get_queryset(self, request):
        return super().get_queryset(request).defer("transaction__account_number")


@admin.register(DishonoredReturn)
class DishonoredReturnAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """R61-R70 (our ODFI dishonoring a return) and R71-R77 (the RDFI contesting the dishonor): kept beside the
    return they answer; they change no status, make no settlement and count in no return rate."""

    list_display = (
        "id",
        "uuid",
        "company",
        "kind",
        "code",
        "reason",
        "transaction",
        "transaction_return",
        "received_at",
    )
    list_filter = ("kind", "code", "received_at")
    list_select_related = ("company", "transaction", "transaction_return")
    search_fields = ("=uuid", "=transaction__uuid", "=transaction__trace_number", "company__name")
    raw_id_fields = ("company", "transaction", "transaction_return", "ingestion_file")
    date_hierarchy = "received_at"

    def get_queryset(self, request):
        return super().get_queryset(request).defer("transaction__account_number")


@admin.register(ParkedReturnItem)
class ParkedReturnItemAdmin(SuperuserOnlyAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    """Items of a return file that were not applied, with why; like the file, they span companies."""

    list_display = ("id", "ingestion_file", "trace_number", "code", "reason", "transaction_uuid", "created_at")
    list_filter = ("code", "created_at")
    list_select_related = ("ingestion_file",)
    search_fields = ("=trace_number", "=transaction_uuid", "=ingestion_file__uuid", "ingestion_file__filename")
    raw_id_fields = ("ingestion_file",)
    date_hierarchy = "created_at"


class ParkedReturnItemInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = ParkedReturnItem
    fields = ("trace_number", "code", "reason", "transaction_uuid")
    readonly_fields = fields
    extra = 0
    can_delete = False
    verbose_name_plural = "parked items (not applied)"
