"""Back office of the return-rate program: the company page gains its return policy and yearly reviews (inlines),
the company list the three current rates (sortable), each company a "Return rates" page with the rates over time
against their thresholds; debit holds are lifted here; alerts and actions are read-only evidence."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.admin import CompanyAdmin, MerchantSettingsInline
from accounts.models import Company
from transactions.models import AccountBlock, DebitHold, ReturnPolicy, RiskAction, RiskAlert, RiskReview
from transactions.return_codes import RETURN_CODES
from transactions.risk import monitoring
from transactions.risk import return_rates as rates
from transactions.risk.account_rules import account_blocks_lift
from transactions.risk.chart import rate_chart
from transactions.risk.policies import debit_holds_lift
from vault import figures
from vault.admin_figures import LegibleFiguresMixin
from vault.admin_scoping import CompanyScopedAdminMixin, ReadOnlyAdminMixin
from vault.errors import ApiError
from vault.records import mask

CHART_DAYS = 120
CHART_MONTHS = 12


class ReturnPolicyInline(admin.TabularInline):
    """A company's policy is a risk control: edited only with accounts.manage_risk_controls, else shown."""

    model = ReturnPolicy
    extra = 0
    fields = ("return_code", "block_method", "deactivate_customer", "hold_customer_debits", "notify")
    verbose_name = "return policy row (replaces the default actions of its code)"
    verbose_name_plural = "return policy (each row replaces the default actions of its code)"

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "return_code":
            # R61-R77 are never booked as returns, so no policy could act on them.
            choices = [(code, f"{code} {entry.reason}"[:90]) for code, entry in RETURN_CODES.items() if entry.is_return]
            return forms.ChoiceField(choices=choices, label="Return code")
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def _manages_risk(self, request) -> bool:
        return request.user.has_perm("accounts.manage_risk_controls")

    def has_add_permission(self, request, obj=None) -> bool:
        return self._manages_risk(request) and super().has_add_permission(request, obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return self._manages_risk(request) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self._manages_risk(request) and super().has_delete_permission(request, obj)


class RiskReviewForm(forms.ModelForm):
    """A signed review is shown, never edited: its fields are disabled, so whatever a post says is ignored."""

    class Meta:
        model = RiskReview
        fields = ("reviewed_on", "notes")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            for field in self.fields.values():
                field.disabled = True


class RiskReviewInline(admin.TabularInline):
    """Signed reviews are evidence (Nacha 2.2.4), append-only (N15): a review is never edited or deleted, in
    anyone's name; a correction is a new review, signed by whoever enters it."""

    model = RiskReview
    form = RiskReviewForm
    extra = 0
    can_delete = False
    fields = ("reviewed_on", "reviewed_by", "notes")
    readonly_fields = ("reviewed_by",)
    verbose_name = "yearly review of the fraud-monitoring program (cannot be edited once saved)"


def _rate_column(category: rates.RateCategory):
    name = f"{category.value}_rate"

    # A company without debits has no rate ("n/a"); it sorts below every rate, 0.00% included.
    @admin.display(description=f"{category.value} rate (60 days)", ordering=Coalesce(F(name), Value(-1.0)))
    def column(self, obj: Company) -> str:
        value = getattr(obj, name, None)
        if value is None:
            return figures.percent(None)
        threshold = rates.THRESHOLDS[category]
        colour = "#b30000" if value > threshold else "#e08a00" if value * 100 >= threshold * 80 else "inherit"
        return format_html('<span style="color:{}">{}</span>', colour, f"{value:.2%}")

    column.__name__ = f"{category.value}_rate_column"
    return column


class MerchantSettingsRiskInline(MerchantSettingsInline):
    """The company's settings with those of the return-rate program and credit monitoring."""

    credit_monitoring_fields = (
        "credit_hold_new_account_days",
        "credit_velocity_amount",
        "credit_velocity_count",
        "credit_velocity_days",
    )
    fields = (
        *MerchantSettingsInline.fields,
        "return_rate_warning_percent",
        "hold_debits_on_breach",
        *credit_monitoring_fields,
    )
    risk_control_fields = fields


class CompanyRiskAdmin(CompanyAdmin):
    """The accounts CompanyAdmin with the return-rate program added (transactions sits above accounts)."""

    inlines = [
        *(inline for inline in CompanyAdmin.inlines if inline is not MerchantSettingsInline),
        MerchantSettingsRiskInline,
        ReturnPolicyInline,
        RiskReviewInline,
    ]
    unauthorized_rate_column = _rate_column(rates.RateCategory.UNAUTHORIZED)
    administrative_rate_column = _rate_column(rates.RateCategory.ADMINISTRATIVE)
    overall_rate_column = _rate_column(rates.RateCategory.OVERALL)
    list_display = (
        *CompanyAdmin.list_display,
        "unauthorized_rate_column",
        "administrative_rate_column",
        "overall_rate_column",
        "return_rates_link",
    )
    fields = (*CompanyAdmin.fields, "fraud_monitoring_flags", "return_rates_link")
    readonly_fields = (*CompanyAdmin.readonly_fields, "fraud_monitoring_flags", "return_rates_link")

    def get_queryset(self, request):
        today = rates.today_eastern(timezone.now())
        return super().get_queryset(request).annotate(**rates.current_rate_annotations(today=today))

    @admin.display(description="return rates")
    def return_rates_link(self, obj: Company) -> str:
        if obj.pk is None:
            return "-"
        url = reverse("admin:accounts_company_return_rates", args=[obj.pk])
        return format_html('<a href="{}">Return rates</a>', url)

    @admin.display(description="fraud monitoring flags")
    def fraud_monitoring_flags(self, obj: Company) -> str:
        if obj.pk is None:
            return "-"
        found = monitoring.flags(company=obj, period=rates.rolling_period(rates.today_eastern(timezone.now())))
        return "; ".join(flag["detail"] for flag in found) or "none"

    def save_formset(self, request, form, formset, change):
        # A review is signed by the staff user who enters it, with the fraud rules it reviewed; only new reviews
        # reach here (append-only).
        if formset.model is RiskReview:
            for review in formset.save(commit=False):
                if review.pk is None:
                    review.reviewed_by = request.user
                    review.rules = monitoring.fraud_rules(form.instance)
                    review.save()
            return
        super().save_formset(request, form, formset, change)

    def get_urls(self):
        own = [
            path(
                "<path:object_id>/return-rates/",
                self.admin_site.admin_view(self.return_rates_view),
                name="accounts_company_return_rates",
            )
        ]
        return own + super().get_urls()

    def return_rates_view(self, request, object_id):
        company = self.get_object(request, unquote(object_id))  # scoped: another company's page is 404
        if company is None:
            raise Http404("No such company")
        if not self.has_view_permission(request, company):
            raise PermissionDenied
        now = timezone.now()
        today = rates.today_eastern(now)
        window = rates.rolling_period(today)
        current = rates.return_rates(company=company, period=window)
        by_files = rates.return_rates(company=company, period=window, method=rates.RateMethod.FILES)
        points = rates.rolling_series(company=company, last_day=today, days=CHART_DAYS)
        percent = company.merchant_settings.return_rate_warning_percent
        categories = [
            {
                "name": category.value,
                "returns": current.total.returns[category],
                "rate": figures.percent(current.total.defined_rate(category)),
                "files_rate": figures.percent(by_files.total.defined_rate(category)),
                "threshold": f"{rates.THRESHOLDS[category]:.1%}",
                "over": current.total.rate(category) > rates.THRESHOLDS[category],
                "chart": rate_chart(
                    points=points, category=category, threshold=rates.THRESHOLDS[category], warning_percent=percent
                ),
            }
            for category in rates.CATEGORIES
        ]
        context = {
            **self.admin_site.each_context(request),
            "title": f"Return rates: {company.name}",
            "opts": self.model._meta,
            "original": company,
            "company": company,
            "window": window,
            "debits": current.total.debits,
            "files_debits": by_files.total.debits,
            "categories": categories,
            "months": [
                {
                    "month": sheet.period.first_day.strftime("%Y-%m"),
                    "debits": sheet.total.debits,
                    "cells": [
                        (sheet.total.returns[category], figures.percent(sheet.total.defined_rate(category)))
                        for category in rates.CATEGORIES
                    ],
                }
                for sheet in rates.monthly_sheets(company=company, months=CHART_MONTHS, now=now)
            ],
            "month_categories": [category.value for category in rates.CATEGORIES],
            "alerts": RiskAlert.objects.filter(company=company).order_by("-created_at", "-pk")[:20],
            "holds": DebitHold.objects.filter(company=company, lifted_at__isnull=True).select_related("customer"),
            "warning_percent": percent,
        }
        return TemplateResponse(request, "admin/transactions/company_return_rates.html", context)


admin.site.unregister(Company)
admin.site.register(Company, CompanyRiskAdmin)


@admin.register(DebitHold)
class DebitHoldAdmin(CompanyScopedAdminMixin, admin.ModelAdmin):
    list_display = ("company", "customer", "reason", "created_at", "lifted_at")
    list_filter = (("lifted_at", admin.EmptyFieldListFilter),)
    list_select_related = ("company", "customer")
    raw_id_fields = ("company", "customer", "alert")
    readonly_fields = ("company", "customer", "reason", "alert", "created_at", "lifted_at")
    actions = ["lift"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # the report keeps every hold; lifting sets lifted_at

    def has_lift_permission(self, request) -> bool:
        return request.user.has_perm("transactions.lift_debithold")

    @admin.action(description="Lift the selected holds (new debits are no longer held)", permissions=["lift"])
    def lift(self, request, queryset):
        lifted = debit_holds_lift(holds=queryset, at=timezone.now())
        self.message_user(request, f"{lifted} hold(s) lifted.", messages.SUCCESS)


@admin.register(RiskAlert)
class RiskAlertAdmin(LegibleFiguresMixin, CompanyScopedAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "company",
        "category",
        "level",
        "returns",
        "debits",
        "rate",
        "threshold",
        "as_of",
        "created_at",
    )
    list_filter = ("level", "category")
    rate_fields = ("rate", "threshold")
    list_select_related = ("company",)


@admin.register(RiskAction)
class RiskActionAdmin(CompanyScopedAdminMixin, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("company", "action", "return_code", "detail", "taken_at")
    list_filter = ("action",)
    list_select_related = ("company",)


class LiftReasonForm(ActionForm):
    lift_reason = forms.CharField(required=False, max_length=255, label="Reason for lifting")


@admin.register(AccountBlock)
class AccountBlockAdmin(CompanyScopedAdminMixin, admin.ModelAdmin):
    """Accounts a return blocked for debits (CONTRACT 12). Lifting needs its own permission and a reason."""

    list_display = ("company", "masked_account", "routing_number", "return_code", "blocked_at", "lifted_at")
    list_filter = (("lifted_at", admin.EmptyFieldListFilter), "return_code")
    list_select_related = ("company",)
    search_fields = ("=uuid", "=routing_number", "=account_last_four")
    fields = (
        "uuid",
        "company",
        "masked_account",
        "routing_number",
        "return_code",
        "transaction",
        "blocked_at",
        "lifted_at",
        "lifted_by",
        "lift_reason",
    )
    readonly_fields = fields
    actions = ["lift"]
    action_form = LiftReasonForm

    @admin.display(description="account")
    def masked_account(self, obj: AccountBlock) -> str:
        return mask(obj.account_last_four)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # lifting keeps the record

    def has_lift_account_block_permission(self, request) -> bool:
        return request.user.has_perm("transactions.lift_account_block")

    @admin.action(
        description="Lift the selected account blocks (debits allowed again)", permissions=["lift_account_block"]
    )
    def lift(self, request, queryset):
        try:
            lifted = account_blocks_lift(
                blocks=queryset, reason=request.POST.get("lift_reason") or "", user=request.user, at=timezone.now()
            )
        except ApiError as exc:
            self.message_user(request, exc.message, messages.ERROR)
            return
        self.message_user(request, f"{lifted} block(s) lifted.", messages.SUCCESS)
