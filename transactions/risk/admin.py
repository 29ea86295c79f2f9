"""Back office of the return-rate program: the company page gains its return policy and yearly reviews (inlines),
the company list the three current rates (sortable), each company a "Return rates" page with the rates over time
against their thresholds; debit holds are lifted here; alerts and actions are read-only evidence."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import F, Value
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.html import format_html

from accounts.models import Company
from transactions.models import AccountBlock, DebitHold, ReturnPolicy, RiskAction, RiskAlert, RiskReview
from transactions.return_codes import RETURN_CODES
from transactions.risk import return_rates as rates
from transactions.risk.account_rules import account_blocks_lift
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


def rate_column(category: rates.RateCategory):
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
