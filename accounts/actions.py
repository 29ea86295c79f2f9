"""The permission vocabulary and the route -> action table (SPEC 5, CONTRACT 3): the one truth the
permission class reads. Keys are (URL name, HTTP method)."""

from __future__ import annotations

from django.db import models


class Action(models.TextChoices):
    CREATE_CUSTOMER = "CreateCustomer"
    GET_CUSTOMER = "GetCustomer"
    LIST_CUSTOMERS = "ListCustomers"
    UPDATE_CUSTOMER = "UpdateCustomer"
    MANAGE_PAYMENT_METHODS = "ManagePaymentMethods"
    VIEW_PAYMENT_METHODS = "ViewPaymentMethods"
    CREATE_TRANSACTION = "CreateTransaction"
    VOID_TRANSACTION = "VoidTransaction"
    REVERSE_TRANSACTION = "ReverseTransaction"
    REFUND_TRANSACTION = "RefundTransaction"
    VIEW_TRANSACTIONS = "ViewTransactions"
    VIEW_REPORTS = "ViewReports"
    MANAGE_WEBHOOKS = "ManageWebhooks"
    VIEW_EVENTS = "ViewEvents"
    VIEW_RISK = "ViewRisk"
    SIMULATE_SANDBOX = "SimulateSandbox"
    MANAGE_RISK_SETTINGS = "ManageRiskSettings"
    MANAGE_MANDATES = "ManageMandates"
    VIEW_MANDATES = "ViewMandates"
    MANAGE_SCHEDULES = "ManageSchedules"
    VIEW_BALANCE = "ViewBalance"


ALL_ACTIONS: tuple[str, ...] = tuple(Action.values)

# Actions an API key of a company in staged rollout may use only when its rollout flag is set (SPEC 5 rule 2).
ROLLOUT_GATED_ACTIONS = frozenset({Action.CREATE_CUSTOMER, Action.MANAGE_PAYMENT_METHODS})

DEFAULT_ROLES: dict[str, tuple[str, ...]] = {
    "admin": ALL_ACTIONS,
    "support": (
        Action.GET_CUSTOMER,
        Action.LIST_CUSTOMERS,
        Action.UPDATE_CUSTOMER,
        Action.VIEW_PAYMENT_METHODS,
        Action.VIEW_TRANSACTIONS,
        Action.VIEW_REPORTS,
    ),
    "reporting": (Action.VIEW_REPORTS, Action.VIEW_TRANSACTIONS),
}

LIVE_API_KEY_GROUP = "live-api-key"

ROUTE_ACTIONS: dict[tuple[str, str], str] = {
    ("customer-list", "POST"): Action.CREATE_CUSTOMER,
    ("customer-list", "GET"): Action.LIST_CUSTOMERS,
    ("customer-detail", "GET"): Action.GET_CUSTOMER,
    ("customer-detail", "PATCH"): Action.UPDATE_CUSTOMER,
    ("payment-method-create", "POST"): Action.MANAGE_PAYMENT_METHODS,
    ("payment-method-list", "GET"): Action.VIEW_PAYMENT_METHODS,
    ("payment-method-detail", "GET"): Action.VIEW_PAYMENT_METHODS,
    ("payment-method-detail", "DELETE"): Action.MANAGE_PAYMENT_METHODS,
    ("payment-method-set-default", "POST"): Action.MANAGE_PAYMENT_METHODS,
    ("payment-method-validate", "POST"): Action.MANAGE_PAYMENT_METHODS,
    ("payment-method-validate-confirm", "POST"): Action.MANAGE_PAYMENT_METHODS,
    ("transaction-create", "PUT"): Action.CREATE_TRANSACTION,
    ("transaction-detail", "GET"): Action.VIEW_TRANSACTIONS,
    ("transaction-void", "POST"): Action.VOID_TRANSACTION,
    ("transaction-events", "GET"): Action.VIEW_TRANSACTIONS,
    ("transaction-reverse", "POST"): Action.REVERSE_TRANSACTION,
    ("transaction-refund", "POST"): Action.REFUND_TRANSACTION,
    ("reporting-transactions", "GET"): Action.VIEW_REPORTS,
    ("reporting-export-list", "POST"): Action.VIEW_REPORTS,
    ("reporting-export-detail", "GET"): Action.VIEW_REPORTS,
    ("reporting-export-download", "GET"): Action.VIEW_REPORTS,
    ("reporting-transactions-csv", "GET"): Action.VIEW_REPORTS,
    ("webhook-endpoint-list", "POST"): Action.MANAGE_WEBHOOKS,
    ("webhook-endpoint-list", "GET"): Action.MANAGE_WEBHOOKS,
    ("webhook-endpoint-detail", "GET"): Action.MANAGE_WEBHOOKS,
    ("webhook-endpoint-detail", "PATCH"): Action.MANAGE_WEBHOOKS,
    ("webhook-endpoint-detail", "DELETE"): Action.MANAGE_WEBHOOKS,
    ("webhook-endpoint-rotate-secret", "POST"): Action.MANAGE_WEBHOOKS,
    ("webhook-endpoint-replay", "POST"): Action.MANAGE_WEBHOOKS,
    ("event-list", "GET"): Action.VIEW_EVENTS,
    ("event-detail", "GET"): Action.VIEW_EVENTS,
    ("transaction-retry", "POST"): Action.CREATE_TRANSACTION,
    ("risk-return-rates", "GET"): Action.VIEW_RISK,
    ("risk-report", "GET"): Action.VIEW_RISK,
    ("sandbox-transaction-return", "POST"): Action.SIMULATE_SANDBOX,
    ("sandbox-transaction-notice-of-change", "POST"): Action.SIMULATE_SANDBOX,
    ("sandbox-clock-advance", "POST"): Action.SIMULATE_SANDBOX,
    ("retry-policy", "PUT"): Action.MANAGE_RISK_SETTINGS,
    ("retry-policy", "GET"): Action.VIEW_REPORTS,
    ("sandbox-risk-reset", "POST"): Action.SIMULATE_SANDBOX,
    ("mandate-list", "POST"): Action.MANAGE_MANDATES,
    ("mandate-list", "GET"): Action.VIEW_MANDATES,
    ("mandate-detail", "GET"): Action.VIEW_MANDATES,
    ("mandate-revoke", "POST"): Action.MANAGE_MANDATES,
    ("mandate-proof", "GET"): Action.VIEW_MANDATES,
    ("mandate-proof-evidence", "GET"): Action.VIEW_MANDATES,
    ("schedule-list", "POST"): Action.MANAGE_SCHEDULES,
    ("schedule-list", "GET"): Action.MANAGE_SCHEDULES,
    ("schedule-detail", "GET"): Action.MANAGE_SCHEDULES,
    ("schedule-pause", "POST"): Action.MANAGE_SCHEDULES,
    ("schedule-resume", "POST"): Action.MANAGE_SCHEDULES,
    ("schedule-cancel", "POST"): Action.MANAGE_SCHEDULES,
    ("balance", "GET"): Action.VIEW_BALANCE,
}

# Routes that need more than their own action (CONTRACT 14, 2026-12-07): a schedule makes debits, so making or resuming
# one needs CreateTransaction as well as ManageSchedules (a key that cannot charge cannot charge through a schedule).
ROUTE_ALSO_NEEDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("schedule-list", "POST"): (Action.CREATE_TRANSACTION,),
    ("schedule-resume", "POST"): (Action.CREATE_TRANSACTION,),
}
