"""Read-only, masked view of saved bank accounts for support: last four only, scoped to the staff user's companies."""

from __future__ import annotations

from django.contrib import admin

from customers.admin import CustomerAdmin
from customers.models import Customer
from payments.models import PaymentMethod
from vault.admin_scoping import CompanyScopedAdminMixin, ExactUuidSearchMixin, ReadOnlyAdminMixin


@admin.register(PaymentMethod)
class PaymentMethodAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, ExactUuidSearchMixin, admin.ModelAdmin):
    list_display = ["display_name", "customer", "company", "is_default", "created_at", "deleted_at"]
    list_filter = ["account_type", "is_default", ("company", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["customer__email", "customer__last_name", "customer__company_name", "nickname", "last_four"]
    uuid_search_fields = ["uuid", "customer__uuid"]
    list_select_related = ["customer", "company"]
    fields = [
        "uuid",
        "company",
        "customer",
        "display_name",
        "account_type",
        "nickname",
        "is_default",
        "created_at",
        "deleted_at",
        "blocked_at",
        "blocked_reason",
    ]
    readonly_fields = fields
    ordering = ["-created_at", "-id"]


class PaymentMethodInline(ReadOnlyAdminMixin, admin.TabularInline):
    """Masked: the last four digits only, never the account or routing number."""

    model = PaymentMethod
    fields = ["display_name", "nickname", "is_default", "created_at", "deleted_at", "blocked_at", "uuid"]
    readonly_fields = fields
    extra = 0
    show_change_link = False

    def has_view_permission(self, request, obj=None) -> bool:
        # Masked, so whoever may see the customer (the parent admin checks that) may see its methods.
        return True


class CustomerWithMethodsAdmin(CustomerAdmin):
    inlines = [PaymentMethodInline]


admin.site.unregister(Customer)
admin.site.register(Customer, CustomerWithMethodsAdmin)
