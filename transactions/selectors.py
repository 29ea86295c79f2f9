"""Reads for charges, each scoped to one company (another company's object is 404)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db.models import BooleanField, Expression, Field, QuerySet
from django.utils import timezone

from accounts.models import Company
from customers.models import Customer
from customers.selectors import customer_get
from payments.models import PaymentMethod
from transactions.models import Transaction, TransactionEvent
from transactions.records import REPRESENTMENT, REPRESENTMENT_SUBQUERY
from transactions.rules import DUPLICATE_WINDOW_HOURS
from vault.db import RowColumn, RowLookup
from vault.errors import NotFound

TRANSACTION_NOT_FOUND = "Transaction not found"


class TransactionNotFound(NotFound):
    """404 for a transaction named in the path: `errors[0].field` is the record's own key, `uuid` (F17)."""

    def __init__(self) -> None:
        super().__init__(TRANSACTION_NOT_FOUND, field="uuid")


def transaction_list(*, company: Company) -> QuerySet[Transaction]:
    """With what the record reads of linked rows, a re-presentment's first presentment and a returned debit's own
    re-presentment included (transactions.records)."""
    return (
        Transaction.objects.filter(company=company)
        .select_related("customer", "payment_method", "hold", "mandate", "scheduled_debit__schedule", "retry_of")
        .defer("retry_of__account_number")  # its uuid is all the record reads of it
        .annotate(**{REPRESENTMENT: REPRESENTMENT_SUBQUERY})
    )


def transaction_get(*, company: Company, transaction_uuid: UUID) -> Transaction:
    found = transaction_list(company=company).filter(uuid=transaction_uuid).first()
    if found is None:
        raise TransactionNotFound()
    return found


def transaction_events(*, company: Company, transaction_uuid: UUID) -> QuerySet[TransactionEvent]:
    """A transaction's trail, oldest first; 404 for another company's transaction."""
    found = Transaction.objects.filter(company=company, uuid=transaction_uuid).values_list("pk", flat=True).first()
    if found is None:
        raise TransactionNotFound()
    return TransactionEvent.objects.filter(transaction_id=found).order_by("id")


# What a charge reads of a saved method and its customer (the hot path: fewer columns to fetch and decode), found
# by the method's uuid within the company, live, with the customer of the same company.
_SAVED_METHOD = RowLookup(
    PaymentMethod,
    fields=("uuid", "company_id", "customer_id", "account_type", "account_number", "account_number_hash",
            "unpadded_account_hash", "last_four", "routing_number", "blocked_at", "blocked_reason", "corrected_name"),
    related="customer",
    related_fields=("uuid", "company_id", "status", "first_name", "last_name", "company_name", "account_holder_type"),
    where=("company_id", "related.company_id", "uuid"),
    null=("deleted_at",),
)  # fmt: skip


def saved_method_for_charge(
    *, company: Company, customer_uuid: UUID, payment_method_uuid: UUID, also: RowColumn | None = None
) -> tuple[Customer, PaymentMethod | None, Any]:
    """The customer and their live saved method in one query on the common path (customer_get followed by
    payment_method_get would be two, with the same scoping: this company, live, owned by that customer), and
    `also`'s value read in the same statement (None without it, or without the method).

    Returns (customer, None, None) when the method is unknown, deleted or another customer's; raises 404 for an
    unknown customer, which the charge reports first (SPEC 4.7 order)."""
    method, value = _SAVED_METHOD.get_with(also, company.pk, company.pk, payment_method_uuid)
    if method is not None and method.customer.uuid == customer_uuid:
        return method.customer, method, value
    return customer_get(company=company, customer_uuid=customer_uuid), None, None


def duplicate_of(
    *,
    company: Company,
    amount: int,
    type: str,
    now: datetime,
    account_number_hash: str = "",
    card_first_six: str = "",
    card_last_four: str = "",
) -> RecentSameCharge:
    """Whether another charge of the same account, amount and type was made in the last 24 hours: an expression
    for the new row's `is_duplicate`, so the INSERT answers it (no query of its own)."""
    if account_number_hash:
        same_payer = {"account_number_hash": account_number_hash}
    else:
        same_payer = {"card_first_six": card_first_six, "card_last_four": card_last_four}
    since = now - timedelta(hours=DUPLICATE_WINDOW_HOURS)
    return RecentSameCharge({"company_id": company.pk, "amount": amount, "type": type} | same_payer, since)


class RecentSameCharge(Expression):
    """EXISTS (a transaction with these column values created at or after `since`), the SQL written from the
    model's columns: `Exists(Transaction.objects.filter(...))` says the same, but resolving and compiling that
    queryset inside every charge's INSERT was about a tenth of a charge's CPU."""

    output_field = BooleanField()

    def __init__(self, equal: dict[str, Any], since: datetime) -> None:
        super().__init__()
        self.equal, self.since = equal, since

    def as_sql(self, compiler, connection):
        names = (*self.equal, "created_at")
        key = (connection.alias, names)
        if key not in _RECENT_SAME_CHARGE_SQL:
            _RECENT_SAME_CHARGE_SQL[key] = _recent_same_charge_sql(names, connection)
        sql, fields = _RECENT_SAME_CHARGE_SQL[key]
        values = (*self.equal.values(), self.since)
        return sql, [field.get_db_prep_value(value, connection) for field, value in zip(fields, values, strict=True)]


# (alias, compared column names) -> RecentSameCharge's SQL and its fields: written once per process.
_RECENT_SAME_CHARGE_SQL: dict[tuple[str, tuple[str, ...]], tuple[str, list[Field]]] = {}


def _recent_same_charge_sql(names: tuple[str, ...], connection) -> tuple[str, list[Field]]:
    meta, quote = Transaction._meta, connection.ops.quote_name
    fields = [meta.get_field(name) for name in names]
    conditions = [f"U0.{quote(field.column)} = %s" for field in fields[:-1]]
    conditions.append(f"U0.{quote(fields[-1].column)} >= %s")
    # Never an account validation's entry: a micro-deposit's amount must not answer isDuplicate (CONTRACT 12).
    conditions.append(f"U0.{quote(meta.get_field('account_validation').column)} IS NULL")
    table = quote(meta.db_table)
    return f"EXISTS(SELECT 1 FROM {table} U0 WHERE {' AND '.join(conditions)})", fields  # noqa: S608 (names only)


def company_clock_now(company: Company) -> datetime:
    """The company's clock: a sandbox's where its last advance left it (POST /sandbox/clock/advance), and never
    behind the real time; a live company's is the real time."""
    now = timezone.now()
    return max(company.sandbox_clock_at or now, now)
