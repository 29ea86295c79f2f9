"""Support back office for customers: scoped to the staff user's companies, every change kept in history.

payments/admin.py re-registers it with the saved-methods inline (apps import only downward)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import Http404
from django.urls import reverse
from django.utils.html import format_html
from simple_history.admin import SimpleHistoryAdmin

from customers.models import Customer
from customers.services import (
    PHONE_PATTERN,
    customer_activate,
    customer_deactivate,
    customer_holder_validate,
    customer_update,
)
from vault.admin_scoping import CompanyScopedAdminMixin, ExactUuidSearchMixin
from vault.errors import ApiError


class CustomerAdminForm(forms.ModelForm):
    class Meta:
        model = Customer
        fields = [
            "first_name",
            "last_name",
            "company_name",
            "email",
            "phone",
            "account_holder_type",
            "customer_id",
            "status",
        ]

    def clean_phone(self) -> str:
        phone = self.cleaned_data["phone"]
        if phone and not PHONE_PATTERN.fullmatch(phone):
            raise forms.ValidationError("Phone must be 7 to 15 digits, optionally after a leading +.")
        return phone

    # Set by CustomerAdmin.get_form: re-activating an inactive customer needs its own permission (Risk).
    may_activate = False

    def clean_status(self) -> str:
        status = self.cleaned_data["status"]
        reactivated = self.instance.status != Customer.Status.ACTIVE and status == Customer.Status.ACTIVE
        if reactivated and not self.may_activate:
            raise forms.ValidationError(
                "Re-activating a customer needs the permission “Can re-activate customers” (the Risk group)."
            )
        return status

    def clean(self):
        data = super().clean()
        try:
            data["account_holder_type"] = customer_holder_validate(
                account_holder_type=data.get("account_holder_type", ""),
                first_name=data.get("first_name", ""),
                last_name=data.get("last_name", ""),
                company_name=data.get("company_name", ""),
            )
        except ApiError as exc:
            raise forms.ValidationError(exc.message) from None
        return data


@admin.register(Customer)
class CustomerAdmin(CompanyScopedAdminMixin, ExactUuidSearchMixin, SimpleHistoryAdmin):
    form = CustomerAdminForm
    list_display = ["__str__", "email", "customer_id", "status", "account_holder_type", "company", "created_at"]
    list_filter = ["status", "account_holder_type", ("company", admin.RelatedOnlyFieldListFilter)]
    search_fields = ["first_name", "last_name", "company_name", "email", "customer_id"]
    uuid_search_fields = ["uuid"]
    list_select_related = ["company"]
    readonly_fields = ["uuid", "company", "created_at", "updated_at", "transactions"]
    fieldsets = [
        (None, {"fields": ["uuid", "company", "status", "transactions"]}),
        ("Holder", {"fields": ["account_holder_type", "first_name", "last_name", "company_name", "customer_id"]}),
        ("Contact", {"fields": ["email", "phone"]}),
        ("Dates", {"fields": ["created_at", "updated_at"]}),
    ]
    actions = ["activate", "deactivate"]
    ordering = ["-created_at", "-id"]
    history_list_display = ["status"]
    object_history_list_template = "admin/customers/customer/history_list.html"

    @admin.display(description="transactions")
    def transactions(self, obj: Customer) -> str:
        # By URL name: customers sits below transactions and imports nothing of it (F22).
        url = reverse("admin:transactions_transaction_changelist")
        return format_html('<a href="{}?customer__id__exact={}">This customer\'s transactions</a>', url, obj.pk)

    def save_model(self, request, obj, form, change) -> None:
        # Through the API's own write, so the merchant hears of a support agent's fix (customer.updated or
        # customer.deactivated, the event a PATCH sends) and only what changed is saved.
        changes = {name: getattr(obj, name) for name in CustomerAdminForm.Meta.fields}
        customer_update(customer=obj, changes=changes)
        obj.refresh_from_db()

    def has_add_permission(self, request) -> bool:
        # Customers are created by merchants through the API, under their own company.
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        # Transactions and saved methods refer to customers; deactivate instead.
        return False

    def _visible_or_404(self, request, object_id) -> None:
        if not self.get_queryset(request).filter(pk=object_id).exists():
            raise Http404("No such customer.")

    def history_view(self, request, object_id, extra_context=None):
        # simple_history falls back to the history rows of objects outside get_queryset(); scope them too.
        self._visible_or_404(request, object_id)
        return super().history_view(request, object_id, extra_context)

    def history_form_view(self, request, object_id, version_id, extra_context=None):
        self._visible_or_404(request, object_id)
        return super().history_form_view(request, object_id, version_id, extra_context)

    def _set_status(self, request, queryset, change) -> None:
        # One save per customer (not queryset.update) so each change lands in history with the staff user.
        customers = list(queryset)
        for customer in customers:
            change(customer=customer)
        self.message_user(request, f"{len(customers)} customer(s) updated.", messages.SUCCESS)

    def has_activate_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("customers.activate_customer")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.may_activate = self.has_activate_permission(request)
        return form

    @admin.action(description="Activate selected customers", permissions=["activate"])
    def activate(self, request, queryset):
        self._set_status(request, queryset, customer_activate)

    @admin.action(description="Deactivate selected customers", permissions=["change"])
    def deactivate(self, request, queryset):
        self._set_status(request, queryset, customer_deactivate)
