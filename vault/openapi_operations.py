"""What the served API documents say about each operation, in one table: summary (the title ReDoc and Swagger show)
and description, keyed by operationId. A view's own `extend_schema(summary=, description=)` wins; the
postprocessing hook fills in the rest, describes every `Idempotency-Key` header and sets the document's
introduction. tests/test_docs_stand_alone.py fails on an operation left without both."""

from __future__ import annotations

from typing import Any

from vault.records import DATETIME_PATTERN

INTRODUCTION = """\
Store customers, vault their bank accounts, charge them over ACH, RCC, RTP or cards, and report on the
transactions. The guide (quickstart with curl, errors, idempotency, pagination, reporting, webhooks, the
lifecycle of a charge) is served beside this document: [/api/guide/](/api/guide/), and the sandbox's at
[/api/guide/sandbox/](/api/guide/sandbox/).

**Authentication.** An API key as the user name of HTTP Basic: `Authorization: Basic base64("<apiKey>:")`
(curl: `-u "$KEY:"`). The key's company is the merchant. Dashboard users may instead log in
(`POST /auth/login`) and send `Authorization: Bearer <accessToken>` with `entityUuid=<company uuid>`.
Missing or unknown credentials: 401; a caller without the operation's action: 403.

**Envelope.** Success: `{"status": "success", "data": ...}` (lists add `meta`). Failure:
`{"status": "error", "data": null, "message": "...", "errors": [{"field", "code", "message"}]}`; the codes
are listed in the guide. Another company's object answers 404, as if it did not exist. Every timestamp
written is UTC with six fraction digits: `2026-11-25T14:00:00.000000Z`.

**Idempotency.** `PUT /transactions` (and each creating POST that documents the header) takes an
`Idempotency-Key`: the same key with the same body within 24 hours replays the first answer (header
`Idempotent-Replayed: true`); the same key with another body is 409 `idempotency_key_reused`.

**Pagination.** Lists answer `meta.pagination`: `page`, `pageSize`, `totalRows`, `totalFilteredRows` and, where
a cursor applies, `nextCursor` (send it back as `cursor`; null on the last page).

**Webhooks** follow Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`); verify them with
the `standardwebhooks` library and the endpoint's `whsec_` secret."""

IDEMPOTENCY_KEY_DESCRIPTION = (
    "Any string up to 255 characters, unique per request you mean to make once. Within 24 hours the same key with "
    "the same body replays the first answer (with `Idempotent-Replayed: true`); with another body it is 409 "
    "`idempotency_key_reused`; while the first request is still running it is 409 as well. Keys are per company."
)

# operationId -> (summary, description)
OPERATIONS: dict[str, tuple[str, str]] = {
    "auth_login": (
        "Log in a dashboard user",
        "Email and password; answers an access token (Bearer) and a refresh token.",
    ),
    "auth_refresh": (
        "Refresh an access token",
        "A refresh token for a new access token; a used refresh token is spent.",
    ),
    "customer_list": (
        "List customers",
        "Newest first; filters `email`, `customerId`, `status`, `name` (substring). Paged with `page` and `pageSize`.",
    ),
    "customer_create": ("Create a customer", "A person (firstName, lastName) or an organization (companyName)."),
    "customer_get": ("Get a customer", "404 for an unknown customer or one of another company."),
    "customer_update": (
        "Update a customer",
        "Status and contact fields; `status: inactive` deactivates (event `customer.deactivated`).",
    ),
    "payment_method_list": (
        "List a customer's payment methods",
        "Every saved method of the customer, with full account and routing numbers (action ViewPaymentMethods).",
    ),
    "payment_method_get": (
        "Get a payment method",
        "The saved method, with `blocked`/`blockedReason` when a return blocked it.",
    ),
    "payment_method_delete": (
        "Delete a payment method",
        "204. The method is kept for history and gone from reads; a default is replaced by the newest remaining one.",
    ),
    "payment_method_set_default": ("Make a payment method the default", "Exactly one default per customer."),
    "payment_method_validate": (
        "Start validating a bank account",
        "A prenote or two micro-deposits; 202 with the method (`validationStatus: pending`).",
    ),
    "payment_method_validate_confirm": (
        "Confirm micro-deposit amounts",
        "The two amounts in cents the payer saw on their statement.",
    ),
    "payment_method_create": (
        "Save a bank account",
        "Account and routing numbers are encrypted at rest and never shown in lists of other objects; a second "
        "method with the same account is 409 naming the existing one.",
    ),
    "event_list": (
        "List events",
        "Newest first; filters `type`, `objectUuid`, `since`, `until`; cursor-paged (`meta.nextCursor`, also in "
        "`meta.pagination.nextCursor`).",
    ),
    "event_get": ("Get an event with its delivery attempts", "The event body a webhook delivers, and every attempt."),
    "reporting_transactions_get": (
        "Report on transactions",
        "Filters (`field:condition=value`), `columns`, `sort`, `page`/`pageSize` or `cursor`, `format=csv`.",
    ),
    "reporting_transactions_csv_get": ("Export transactions as CSV", "Every matching row as CSV, no paging."),
    "reporting_export_get": ("Get a background export", "Its state; when done, where to download the file."),
    "reporting_export_download": ("Download a background export", "The CSV file of a finished export."),
    "risk_report_get": ("Return-risk evidence report", "Policy, thresholds, rates, alerts, actions and holds."),
    "risk_return_rates_get": ("Return rates", "Unauthorized, administrative and overall return rates, by SEC code."),
    "retry_policy_get": ("Get the retry policy", "How R01/R09 returns are re-presented automatically; off until set."),
    "retry_policy_put": (
        "Set the retry policy",
        "Re-present R01/R09 returns on a schedule (at most twice, within 180 days), or turn it off.",
    ),
    "transaction_create_put": ("Charge", "Creates a transaction; see the operation's own description."),
    "transaction_detail_get": (
        "Get a transaction",
        "The transaction record: status, amount, and why: `failureReason` when DECLINED, `holdCode`/`holdReason` when "
        "HELD, `returnCode`/`returnReason`/`returnedAt` once returned.",
    ),
    "transaction_events_get": ("A transaction's trail", "Every status change, oldest first, with who made it and why."),
    "transaction_retry_post": ("Retry a returned debit", "Re-presents a debit returned R01 or R09 (at most twice)."),
    "transaction_refund_post": (
        "Refund a transaction",
        "A new credit (PPD or CCD by holder, description REFUND) of at most the original amount less earlier refunds.",
    ),
    "transaction_reverse_post": ("Reverse a settled debit", "A Nacha reversal: an offsetting credit; 201 with it."),
    "transaction_void_post": ("Void a pending transaction", "Only a Pending transaction can be voided (not yet sent)."),
    "webhook_endpoint_list": ("List webhook endpoints", "The company's endpoints (secrets are never shown again)."),
    "webhook_endpoint_create": (
        "Create a webhook endpoint",
        "An https URL and the event types it wants (`*`, `transaction.*` or exact types); the `whsec_` secret is in "
        "this answer only.",
    ),
    "webhook_endpoint_get": ("Get a webhook endpoint", "Its URL, types, state and health."),
    "webhook_endpoint_update": ("Update a webhook endpoint", "url, eventTypes, enabled."),
    "webhook_endpoint_delete": ("Delete a webhook endpoint", "204; nothing more is delivered to it."),
    "webhook_endpoint_replay": (
        "Replay events to an endpoint",
        "`eventIds` or `since`/`until`: those events are owed to the endpoint again (202).",
    ),
    "webhook_endpoint_rotate_secret": (
        "Rotate an endpoint's secret",
        "A new secret, shown once; the old one keeps signing beside it for 24 hours.",
    ),
    "mandate_create": (
        "Record a payer's authorization (mandate)",
        "The wording the payer accepted (kept with its SHA-256), SEC code, single or recurring, channel (online needs "
        "ipAddress and userAgent), acceptedAt, terms and an optional evidence file (base64, up to 5 MB, encrypted at "
        "rest). 201 with `status: active`.",
    ),
    "mandate_list": ("List a customer's mandates", "Newest first, revoked ones included."),
    "mandate_get": ("Get a mandate", "Its text and hash, acceptance, terms, state and `retainUntil`."),
    "mandate_revoke": (
        "Revoke a mandate",
        "`reason` required; no debit may name it after. It is kept until `retainUntil`, two years later.",
    ),
    "mandate_proof_evidence": ("Download a mandate's evidence file", "The file as it was sent; 404 without one."),
    "schedule_create": (
        "Schedule recurring debits",
        "Under an active recurring mandate of the customer and method, within its maxAmount: weekly, biweekly or "
        "monthly (`dayOfMonth`), from `startDate`, until `endDate` or `count` debits.",
    ),
    "schedule_list": ("List schedules", "Newest first; filters `customerUuid` and `status`."),
    "schedule_get": ("Get a schedule", "Its terms, state, debits made and the next 12 dates (banking days)."),
    "schedule_pause": ("Pause a schedule", "No debit is made while paused; 409 unless active."),
    "schedule_resume": ("Resume a schedule", "Dates that passed while it was paused are skipped; 409 unless paused."),
    "schedule_cancel": ("Cancel a schedule", "For good: no more debits; 409 once stopped, completed or cancelled."),
}


def document_operations(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook (SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"])."""
    result.setdefault("info", {})["description"] = INTRODUCTION
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            summary, description = OPERATIONS.get(operation["operationId"], ("", ""))
            if summary and not operation.get("summary"):
                operation["summary"] = summary
            if description and not operation.get("description"):
                operation["description"] = description
            for parameter in operation.get("parameters", []):
                if parameter.get("in") == "header" and parameter.get("name", "").lower() == "idempotency-key":
                    parameter.setdefault("description", IDEMPOTENCY_KEY_DESCRIPTION)
    return result


def document_timestamps(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every timestamp an answer carries states the one form it has
    (vault.records.DATETIME_FORMAT) as its pattern. Requests keep plain `date-time`: any ISO 8601 UTC is read."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if not name.endswith("Request"):
            _timestamps_patterned(schema)
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if isinstance(operation, dict):
                _timestamps_patterned(operation.get("responses", {}))
    return result


def _timestamps_patterned(node: Any) -> None:
    if isinstance(node, dict):
        if node.get("format") == "date-time":
            node["pattern"] = DATETIME_PATTERN
        for value in node.values():
            _timestamps_patterned(value)
    elif isinstance(node, list):
        for value in node:
            _timestamps_patterned(value)
