"""The books in the back office, read-only (CONTRACT 17): entries with their postings, and postings by account."""

from __future__ import annotations

from django.contrib import admin

from ledger.models import JournalEntry, Posting
from vault.admin_figures import LegibleFiguresMixin
from vault.admin_scoping import ReadOnlyAdminMixin


class ReadOnly(ReadOnlyAdminMixin, LegibleFiguresMixin, admin.ModelAdmin):
    money_fields = ("amount",)


class PostingInline(LegibleFiguresMixin, admin.TabularInline):
    money_fields = ("amount",)
    model = Posting
    fields = ("account", "amount", "currency", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnly):
    list_display = ("uuid", "company", "type", "amount", "transaction_uuid", "created_at", "effective_date")
    list_filter = ("type",)
    list_select_related = ("company",)
    search_fields = ("=uuid", "=transaction_uuid", "=payout_uuid")
    readonly_fields = (
        "uuid",
        "company",
        "type",
        "amount",
        "transaction_uuid",
        "payout_uuid",
        "description",
        "created_at",
        "effective_date",
    )
    inlines = [PostingInline]


@admin.register(Posting)
class PostingAdmin(ReadOnly):
    list_display = ("uuid", "company", "account", "amount", "currency", "created_at", "entry")
    list_filter = ("account",)
    list_select_related = ("company", "entry")
    search_fields = ("=uuid", "=entry__uuid", "=entry__transaction_uuid")
    readonly_fields = ("uuid", "entry", "company", "account", "amount", "currency", "created_at")
