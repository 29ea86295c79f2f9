"""Staff admin for merchants, users, roles and API keys. Key secrets are never shown (only a hash is kept);
keys are issued by `create_api_key`, revoked here."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import Group

from accounts.actions import ALL_ACTIONS, Action
from accounts.login_throttle import (
    login_attempt_reserve,
    login_attempt_succeeded,
    login_buckets,
    login_failure_log,
    login_rate_check,
)
from accounts.models import ActionGroup, ApiKey, Company, Membership, MerchantSettings, Role, User
from accounts.selectors import clear_action_group_cache
from accounts.services import api_keys_revoke, merchant_settings_create, user_refresh_tokens_revoke
from events.account_changes import api_key_scope_change, api_key_scope_widens, company_reinstate, company_suspend
from vault.admin_figures import DollarsFormFieldsMixin, money_column
from vault.admin_scoping import CompanyScopedAdminMixin, SuperuserOnlyAdminMixin, is_uuid
from vault.error_codes import ErrorCode


class ActionsFormMixin(forms.ModelForm):
    """`actions` (a JSON list) edited as one checkbox per known action; the list is stored in Action order."""

    actions = forms.MultipleChoiceField(choices=Action.choices, widget=forms.CheckboxSelectMultiple, required=False)

    def clean_actions(self) -> list[str]:
        chosen = set(self.cleaned_data["actions"])
        return [action for action in ALL_ACTIONS if action in chosen]


class RoleForm(ActionsFormMixin):
    class Meta:
        model = Role
        fields = ("name", "actions")


class ActionGroupForm(ActionsFormMixin):
    class Meta:
        model = ActionGroup
        fields = ("name", "actions")


class ApiKeyForm(ActionsFormMixin):
    """A key's scope (CONTRACT 3): its own set of actions, possibly empty (then it may do nothing), or no set at all
    (every action of the live group). Staff may narrow a key with change_apikey; widening it needs
    accounts.manage_api_key_scope (`may_widen`, set per request by the admin)."""

    follows_live_group = forms.BooleanField(
        required=False,
        label="Every action of the live group",
        help_text="No set of its own: the key follows the live API-key action group. Widening needs its own "
        "permission.",
    )
    actions = forms.MultipleChoiceField(
        choices=Action.choices,
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="The only actions this key may use, within the live API-key action group. None ticked: nothing.",
    )
    may_widen = False

    class Meta:
        model = ApiKey
        fields = ("name", "rollout_allowed", "follows_live_group", "actions")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.previous_actions = self.instance.actions if self.instance.pk else None
        self.initial["follows_live_group"] = self.instance.pk is not None and self.instance.actions is None

    def clean(self):
        cleaned = super().clean()
        actions = None if cleaned.get("follows_live_group") else cleaned.get("actions", [])
        if not self.may_widen and api_key_scope_widens(previous=self.previous_actions, actions=actions):
            raise forms.ValidationError(
                "Widening a key's actions needs the permission to manage API key scopes; you may only narrow it.",
                code=ErrorCode.FORBIDDEN,
            )
        cleaned["actions"] = actions
        return cleaned


def _actions_summary(actions: list[str]) -> str:
    if set(actions) >= set(ALL_ACTIONS):
        return "all actions"
    return ", ".join(actions) or "-"


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ("company",)
    fields = ("company", "role")


class SuspensionActionForm(ActionForm):
    reason = forms.CharField(
        required=False, max_length=500, label="Reason (for suspend)", widget=forms.TextInput(attrs={"size": 40})
    )


class RiskControlsMixin(DollarsFormFieldsMixin):
    """An admin or inline whose `risk_control_fields` are editable only with accounts.manage_risk_controls:
    change_company alone does not move a limit or the gate. Without it they are shown, money in dollars."""

    risk_control_fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for field in cls.money_fields:
            setattr(cls, f"{field}_dollars", money_column(field))

    def get_readonly_fields(self, request, obj=None):
        readonly = super().get_readonly_fields(request, obj)
        if request.user.has_perm("accounts.manage_risk_controls"):
            return readonly
        return self._shown_in_dollars((*readonly, *self.risk_control_fields))

    def get_fields(self, request, obj=None):
        if request.user.has_perm("accounts.manage_risk_controls"):
            return super().get_fields(request, obj)  # money fields are edited in dollars (DollarsFormFieldsMixin)
        return self._shown_in_dollars(super().get_fields(request, obj))

    def _shown_in_dollars(self, names) -> tuple:
        return tuple(f"{name}_dollars" if name in self.money_fields else name for name in names)


class MerchantSettingsInline(RiskControlsMixin, admin.StackedInline):
    """The company's settings (accounts.MerchantSettings, one row) on its page. Its permissions are the company's:
    seen with the company, changed with change_company, and every field a risk control."""

    model = MerchantSettings
    can_delete = False
    min_num = max_num = 1
    extra = 0
    money_fields = ("hold_over", "decline_over", "daily_volume_limit")
    fields = (
        "hold_over",
        "decline_over",
        "daily_volume_limit",
        "account_validation",
        "mandate_policy",
        "cutoff_time",
        "same_day_windows",
        "funds_hold_banking_days",
    )
    risk_control_fields = fields

    def has_view_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("accounts.view_company") or request.user.has_perm("accounts.change_company")

    def has_change_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("accounts.change_company")

    def has_add_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("accounts.add_company") or request.user.has_perm("accounts.change_company")

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # every company has its settings


@admin.register(Company)
class CompanyAdmin(RiskControlsMixin, CompanyScopedAdminMixin, admin.ModelAdmin):
    company_lookup = "id"
    action_form = SuspensionActionForm
    actions = ("suspend_selected", "reinstate_selected")
    inlines = (MerchantSettingsInline,)
    hold_over_dollars = money_column("merchant_settings__hold_over")
    decline_over_dollars = money_column("merchant_settings__decline_over")
    daily_volume_limit_dollars = money_column("merchant_settings__daily_volume_limit")

    list_display = (
        "name",
        "uuid",
        "is_sandbox",
        "staged_rollout",
        "hold_over_dollars",
        "decline_over_dollars",
        "daily_volume_limit_dollars",
        "merchant_settings__account_validation",
        "suspended_at",
        "created_at",
    )
    list_select_related = ("merchant_settings",)
    list_filter = (
        "is_sandbox",
        "staged_rollout",
        "merchant_settings__account_validation",
        ("suspended_at", admin.EmptyFieldListFilter),
    )
    readonly_fields = ("uuid", "is_sandbox", "suspended_at", "suspension_reason", "created_at")
    fields = (
        "uuid",
        "name",
        "is_sandbox",
        "staged_rollout",
        "ach_company_id",
        "suspended_at",
        "suspension_reason",
        "created_at",
    )
    search_fields = ("name",)  # plus exact ids, by the shape of the term: get_search_fields
    ordering = ("name",)
    risk_control_fields = ("staged_rollout", "ach_company_id")

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        # A company added with its settings form untouched gets the default settings: every company has its row.
        if not MerchantSettings.objects.filter(pk=form.instance.pk).exists():
            merchant_settings_create(company=form.instance)

    def has_suspend_permission(self, request) -> bool:
        return request.user.has_perm("accounts.suspend_company")

    @admin.action(
        description="Suspend selected companies (every API route 403; give a reason)", permissions=("suspend",)
    )
    def suspend_selected(self, request, queryset) -> None:
        reason = request.POST.get("reason", "").strip()
        if not reason:
            self.message_user(request, "A suspension needs a reason: nothing was suspended.", messages.ERROR)
            return
        for company in queryset:
            company_suspend(company=company, reason=reason)
        self.message_user(request, f"Suspended {len(queryset)} company(ies).", messages.SUCCESS)

    @admin.action(description="Reinstate selected companies", permissions=("suspend",))
    def reinstate_selected(self, request, queryset) -> None:
        for company in queryset:
            company_reinstate(company=company)
        self.message_user(request, f"Reinstated {len(queryset)} company(ies).", messages.SUCCESS)

    def get_search_fields(self, request):
        # An exact uuid lookup only for a uuid-shaped term, so a name search is never a database type error.
        term = request.GET.get("q", "").strip()
        fields = ["name", "=ach_company_id"]
        if is_uuid(term):
            fields.append("=uuid")
        return fields


class EmailUserCreationForm(AdminUserCreationForm):
    class Meta:
        model = User
        fields = ("email",)

    def clean_email(self) -> str:
        # Login lowercases the email it looks up, so the stored address must be lowercase and unique as such.
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError("A user with that email already exists.", code=ErrorCode.UNIQUE)
        return email


class EmailUserChangeForm(UserChangeForm):
    class Meta:
        model = User
        fields = "__all__"

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip().lower()
        if User.objects.filter(email__iexact=email).exclude(pk=self.instance.pk).exists():
            raise forms.ValidationError("A user with that email already exists.", code=ErrorCode.UNIQUE)
        return email


@admin.register(User)
class UserAdmin(SuperuserOnlyAdminMixin, DjangoUserAdmin):
    """Logins span companies and carry is_superuser: operators (superusers) only."""

    form = EmailUserChangeForm
    add_form = EmailUserCreationForm
    fieldsets = (
        (None, {"fields": ("email", "password")}),
        ("Personal info", {"fields": ("full_name",)}),
        ("Permissions", {"fields": ("is_active", "is_staff", "is_superuser", "groups", "user_permissions")}),
        ("Important dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"classes": ("wide",), "fields": ("email", "usable_password", "password1", "password2")}),)
    readonly_fields = ("last_login", "date_joined")
    list_display = ("email", "full_name", "is_active", "is_staff", "date_joined")
    list_filter = ("is_staff", "is_superuser", "is_active")
    search_fields = ("email", "full_name")
    ordering = ("email",)
    inlines = (MembershipInline,)

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else ()

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            # Refresh checks is_active anyway; revoking means a later reactivation does not revive old tokens.
            user_refresh_tokens_revoke(user=obj)


@admin.register(Membership)
class MembershipAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("user", "company", "role")
    list_select_related = ("user", "company", "role")
    list_filter = ("role",)
    search_fields = ("user__email", "company__name")
    autocomplete_fields = ("user", "company")
    ordering = ("company__name", "user__email")


@admin.register(Role)
class RoleAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    """Roles are shared by every company."""

    form = RoleForm
    list_display = ("name", "actions_summary")
    search_fields = ("name",)
    ordering = ("name",)

    @admin.display(description="actions")
    def actions_summary(self, obj: Role) -> str:
        return _actions_summary(obj.actions)


@admin.register(ActionGroup)
class ActionGroupAdmin(SuperuserOnlyAdminMixin, admin.ModelAdmin):
    """The live API-key action group. Its name is what the permission class looks up, so it is fixed once
    created, and the row cannot be deleted from here."""

    form = ActionGroupForm
    list_display = ("name", "actions_summary", "updated_at")
    readonly_fields = ("updated_at",)
    search_fields = ("name",)

    @admin.display(description="actions")
    def actions_summary(self, obj: ActionGroup) -> str:
        return _actions_summary(obj.actions)

    def get_readonly_fields(self, request, obj=None):
        return ("name", "updated_at") if obj is not None else ("updated_at",)

    def has_delete_permission(self, request, obj=None) -> bool:
        # Without the row every API key is refused (fail closed); editing its actions is the way to restrict.
        return False

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        # This process sees the change at once; other workers within the selector's few-second cache.
        clear_action_group_cache()


@admin.register(ApiKey)
class ApiKeyAdmin(CompanyScopedAdminMixin, admin.ModelAdmin):
    form = ApiKeyForm
    list_display = (
        "prefix",
        "name",
        "company",
        "scope",
        "rollout_allowed",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_select_related = ("company",)
    list_filter = (("revoked_at", admin.EmptyFieldListFilter), "rollout_allowed")
    search_fields = ("prefix", "name", "company__name")
    fields = (
        "prefix",
        "name",
        "company",
        "rollout_allowed",
        "follows_live_group",
        "actions",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    readonly_fields = ("prefix", "company", "created_at", "last_used_at", "revoked_at")
    ordering = ("-created_at",)
    actions = ("revoke_selected",)

    def get_readonly_fields(self, request, obj=None):
        # The rollout flag lets a key past the staged-rollout gate (SPEC 5 rule 2): its own grant, beyond change_apikey.
        if request.user.has_perm("accounts.manage_rollout_allowed"):
            return self.readonly_fields
        return (*self.readonly_fields, "rollout_allowed")

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.may_widen = request.user.has_perm("accounts.manage_api_key_scope")
        return form

    def save_model(self, request, obj, form, change) -> None:
        # The scope goes through its service, which tells the merchant (api_key.scope_changed).
        actions, obj.actions = obj.actions, form.previous_actions
        super().save_model(request, obj, form, change)
        api_key_scope_change(api_key=obj, actions=actions)

    @admin.display(description="actions")
    def scope(self, obj: ApiKey) -> str:
        if obj.actions is None:
            return "all of the live group"
        return _actions_summary(obj.actions) if obj.actions else "nothing"

    def has_add_permission(self, request) -> bool:
        # Issued by `manage.py create_api_key`, the only place the raw key is ever shown.
        return False

    @admin.action(description="Revoke selected keys", permissions=("change",))
    def revoke_selected(self, request, queryset) -> None:
        revoked = api_keys_revoke(api_keys=queryset)
        self.message_user(request, f"Revoked {revoked} key(s).", messages.SUCCESS)


# Django's Group admin hands out model permissions: a staff user who could edit groups could grant their own group
# any permission (release holds, risk controls). Superusers only; Permission rows have no admin page at all.
admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(SuperuserOnlyAdminMixin, DjangoGroupAdmin):
    pass


class ThrottledAdminAuthenticationForm(AdminAuthenticationForm):
    """/admin/login/ goes through the same guard as POST /auth/login (H3, N7): the per-address rate before any
    password hash, then the (email, address) and address buckets, shared by both logins; failures are logged."""

    def clean(self):
        username, password = self.cleaned_data.get("username"), self.cleaned_data.get("password")
        if not username or not password:
            return super().clean()
        retry_after = login_rate_check(self.request)
        buckets = login_buckets(self.request, username)
        if retry_after is None:
            retry_after = login_attempt_reserve(buckets=buckets)
        if retry_after is not None:
            login_failure_log(self.request, username, "throttled")
            raise forms.ValidationError(
                "Too many failed login attempts; try again in %(seconds)s seconds.",
                code=ErrorCode.THROTTLED,
                params={"seconds": retry_after},
            )
        try:
            cleaned = super().clean()
        except forms.ValidationError:
            login_failure_log(self.request, username, "bad_credentials")
            raise
        login_attempt_succeeded(buckets=buckets)
        return cleaned


admin.site.login_form = ThrottledAdminAuthenticationForm
