"""The company page with the return-rate program and credit monitoring added: the accounts company admin
(backoffice.accounts_admin) with the rate columns, the policy and review inlines and the return-rates page of
transactions.risk.admin."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from accounts.models import Company
from backoffice.accounts_admin import CompanyAdmin, MerchantSettingsInline
from transactions.models import DebitHold, RiskAlert, RiskReview
from transactions.risk import monitoring
from transactions.risk import return_rates as rates
from transactions.risk.admin import CHART_DAYS, CHART_MONTHS, ReturnPolicyInline, RiskReviewInline, rate_column
from transactions.risk.chart import rate_chart
from vault import figures


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
        "return_rate_minimum_debits",
        *credit_monitoring_fields,
    )
    risk_control_fields = fields
    money_fields = (*MerchantSettingsInline.money_fields, "credit_velocity_amount")


class CompanyRiskAdmin(CompanyAdmin):
    """The accounts CompanyAdmin with the return-rate program added."""

    inlines = [
        *(inline for inline in CompanyAdmin.inlines if inline is not MerchantSettingsInline),
        MerchantSettingsRiskInline,
        ReturnPolicyInline,
        RiskReviewInline,
    ]
    unauthorized_rate_column = rate_column(rates.RateCategory.UNAUTHORIZED)
    administrative_rate_column = rate_column(rates.RateCategory.ADMINISTRATIVE)
    overall_rate_column = rate_column(rates.RateCategory.OVERALL)
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
