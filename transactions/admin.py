"""Read-only transaction admin for support: search by the identifiers support staff type, numbers masked."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from accounts.models import ApiKey, User

# Importing it registers the lifecycle pages (batches, settlements, files) too.
from transactions.ach.admin import (
    TRANSACTION_ACTIONS,
    MaskedAccountMixin,
    TransactionActionForm,
    TransactionActionPermissionsMixin,
    why_held_or_returned,
)
from transactions.mandates import admin as mandates_admin  # noqa: F401  (the mandates' pages)
from transactions.methods import RTP, method_kind
from transactions.models import ChangeNotice, Transaction, TransactionEvent, TransactionHold, TransactionReturn
from transactions.records import representment_uuid
from transactions.risk import admin as returnrisk_admin  # noqa: F401  (the return-rate program's pages)
from transactions.sandbox.admin import simulate_sandbox
from vault.admin_figures import LegibleFiguresMixin
from vault.admin_scoping import CompanyScopedAdminMixin, ReadOnlyAdminMixin, is_uuid

LAST_FOUR = 4
TRACE_NUMBER_DIGITS = 15


class TransactionEventInline(ReadOnlyAdminMixin, admin.TabularInline):
    """The transaction's trail (transactions.state), oldest first."""

    model = TransactionEvent
    fields = ("at", "event", "from_status", "to_status", "who", "reason")
    readonly_fields = fields
    ordering = ("id",)
    extra = 0
    can_delete = False
    verbose_name_plural = "events"

    @admin.display(description="by")
    def who(self, event: TransactionEvent) -> str:
        """The actor in words (the row keeps `api_key:<id>`, `user:<id>` or a command's name)."""
        kind, _, key = event.actor.partition(":")
        if kind == "api_key" and key.isdigit():
            api_key = ApiKey.objects.filter(pk=key).only("name", "prefix").first()
            return f"the merchant's API key {api_key.name or api_key.prefix}" if api_key else "an API key"
        if kind == "user" and key.isdigit():
            user = User.objects.filter(pk=key).only("email").first()
            return f"{user.email} ({'back office' if event.caller == 'admin' else 'dashboard'})" if user else "a user"
        return f"the scheduled job {event.actor}" if event.caller == "command" else event.actor or "-"


def _transaction_link(pk: int, text: str) -> str:
    return format_html('<a href="{}">{}</a>', reverse("admin:transactions_transaction_change", args=[pk]), text)


@admin.register(Transaction)
class TransactionAdmin(
    MaskedAccountMixin,
    LegibleFiguresMixin,
    TransactionActionPermissionsMixin,
    CompanyScopedAdminMixin,
    ReadOnlyAdminMixin,
    admin.ModelAdmin,
):
    """Viewing only; the operator actions of the lifecycle admin do their own writes."""

    inlines = [TransactionEventInline]
    actions = [*TRANSACTION_ACTIONS, simulate_sandbox]
    action_form = TransactionActionForm
    list_display = (
        "id",
        "uuid",
        "company",
        "status",
        "why_short",
        "method",
        "type",
        "amount",
        "effective_date",
        "masked_account",
        "customer_email",
        "created_at",
    )
    list_filter = ("status", "method", "type", "effective_date", "created_at", "is_duplicate", "is_same_day")
    # The reverse one-to-ones feed the list's "why" column in the same query.
    list_select_related = ("company", "customer", "payment_method", "return_entry", "hold")
    search_fields = ("customer__email",)  # the full list depends on the term: get_search_fields
    date_hierarchy = "created_at"
    ordering = ("-id",)
    fields = (
        "outcome",
        "id",
        "uuid",
        "company",
        "customer",
        "payment_method",
        "status",
        "method",
        "type",
        "amount",
        "standard_entry_class_code",
        "effective_date",
        "is_same_day",
        "is_duplicate",
        "name",
        "account_type",
        "masked_account",
        "routing_number",
        "card_masked",
        "card_expiration",
        "authorized_at",
        "auth_response_code",
        "external_unique_id",
        "idempotency_key",
        "rtp_network_id",
        "description",
        "failure_reason",
        "re_presents",
        "re_presented_by",
        "created_at",
        "voided_at",
        "settlement",
        "batch",
        "trace_number",
    )
    readonly_fields = fields
    money_fields = ("amount",)
    card_fields = ("card_masked", "card_expiration", "authorized_at", "auth_response_code")
    bank_fields = ("account_type", "routing_number")
    nacha_fields = ("standard_entry_class_code", "is_same_day", "batch", "trace_number")

    def get_fields(self, request, obj=None):
        # Each entry's page shows the fields of its own method only: a card charge no bank account, an RTP
        # payment no NACHA batch or trace number, an ACH entry no card nor RTP network id.
        fields = super().get_fields(request, obj)
        if obj is None:
            return fields
        kind = method_kind(obj.method)
        hidden = [*(self.bank_fields if kind.pays_by_card else self.card_fields)]
        hidden += [] if kind.in_nacha_file else self.nacha_fields
        hidden += [] if kind is RTP else ["rtp_network_id"]
        return tuple(name for name in fields if name not in hidden)

    @admin.display(description="RTP network id")
    def rtp_network_id(self, obj: Transaction) -> str:
        return obj.rtp_transaction_id or "-"

    def get_search_fields(self, request):
        # Exact lookups on id / uuid columns only when the term has that shape: a mistyped term is no
        # database type error, just no match.
        term = request.GET.get("q", "").strip()
        fields = ["customer__email", "customer__last_name", "customer__company_name", "=external_unique_id"]
        if term.isdigit():
            fields.append("=id")
        if len(term) == LAST_FOUR and term.isdigit():
            fields.append("=account_last_four")  # "the account ending 6789"
        if len(term) == TRACE_NUMBER_DIGITS and term.isdigit():
            fields.append("=trace_number")  # a bank calling about an entry
        if is_uuid(term):
            fields += ["=uuid", "=customer__uuid"]
        return fields

    @admin.display(description="why")
    def outcome(self, obj: Transaction) -> str:
        """What support is asked about first, at the top of the page (newcomer review 2026-12-02 N10): a return's
        code and reason, a notice of change's, a hold's, a decline's."""
        said = []
        if returned := TransactionReturn.objects.filter(transaction=obj).first():
            said.append(f"Returned {returned.return_code}: {returned.return_reason}")
        if noticed := ChangeNotice.objects.filter(transaction=obj).first():
            said.append(f"Notice of change {noticed.change_code}: {noticed.change_reason}")
        if (held := TransactionHold.objects.filter(transaction=obj).first()) and held.released_at is None:
            said.append(f"Held ({held.hold_code}): {held.hold_reason}")
        if obj.failure_reason:
            said.append(f"Declined: {obj.failure_reason}")
        return "; ".join(said) or "-"

    @admin.display(description="why")
    def why_short(self, obj: Transaction) -> str:
        """The list's why (newcomer review 2026-12-02 N10): a return's code, an unreleased hold's code."""
        return why_held_or_returned(obj)

    @admin.display(description="re-presents")
    def re_presents(self, obj: Transaction) -> str:
        """A re-presentment (RETRY PYMT): its first presentment, one click away (newcomer review 2026-12-07 D3)."""
        if obj.retry_of_id is None:
            return "-"
        first = Transaction.objects.only("uuid").get(pk=obj.retry_of_id)
        return _transaction_link(obj.retry_of_id, f"the first presentment {first.uuid}")

    @admin.display(description="re-presented by")
    def re_presented_by(self, obj: Transaction) -> str:
        """A returned presentment: the debit that presented it again, by hand or by run_retries."""
        made = representment_uuid(obj) if obj.return_code else None
        if made is None:
            return "-"
        return _transaction_link(Transaction.objects.values_list("pk", flat=True).get(uuid=made), made)

    @admin.display(description="customer email", ordering="customer__email")
    def customer_email(self, obj: Transaction) -> str:
        return obj.customer.email if obj.customer_id else "-"
