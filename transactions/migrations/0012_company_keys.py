"""CONTRACT 8 (Citus readiness): company_id in every primary key, unique constraint and foreign key of the
merchant-owned tables, on PostgreSQL (vault/company_keys.py; SQLite keeps Django's keys, nothing is rebuilt there).

- PRIMARY KEY (id, company_id) (customers_historicalcustomer: (history_id, company_id)); the models keep `id` as
  their primary key in Django's state (Django 5.2 cannot point a ForeignKey at a composite primary key), and `id`
  stays first so every `WHERE id = ...` and `x_id = id` join keeps its index.
- UNIQUE (uuid, company_id), (transaction_id, company_id) for the one-to-one lifecycle rows, (prefix, company_id)
  for API keys (authentication checks the secret against every key with the prefix: accounts/selectors.py), and
  transaction_unique_trace_number_day on (trace_number, trace_date, company_id): `originate` allots trace numbers
  from one serialized daily sequence across companies, which keeps them unique across merchants
  (transactions/lifecycle/origination.py, tested in tests/transactions/ach/test_trace_numbers.py).
- Foreign keys between two merchant-owned tables: FOREIGN KEY (x_id, company_id) REFERENCES parent (id,
  company_id) DEFERRABLE INITIALLY DEFERRED, so a row can no longer point into another company.

A later migration adding a merchant-owned table or a foreign key to one must call company_keys() for it: Django
alone emits REFERENCES parent (id), which has no unique index of its own any more (README, "worth knowing"; the
readiness test fails on a key or foreign key without company_id)."""

from django.db import migrations

from vault.company_keys import company_keys

MERCHANT_OWNED = [
    "accounts.ApiKey", "accounts.Membership", "customers.Customer", "customers.HistoricalCustomer",
    "events.Delivery", "events.DeliveryAttempt", "events.Event", "events.ObjectSequence", "events.WebhookEndpoint",
    "payments.PaymentMethod", "reporting.CsvExportLease", "reporting.PayerName", "reporting.TransactionCount",
    "transactions.AccountValidation", "transactions.Batch", "transactions.ChangeNotice", "transactions.DebitHold",
    "transactions.IdempotencyRecord", "transactions.ReturnPolicy", "transactions.RiskAction",
    "transactions.RiskAlert", "transactions.RiskReview", "transactions.Settlement", "transactions.Transaction",
    "transactions.TransactionEvent", "transactions.TransactionException", "transactions.TransactionHold",
    "transactions.TransactionReturn",
]  # fmt: skip


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_company_account_validation"),
        ("customers", "0001_initial"),
        ("events", "0002_grant_webhook_actions"),
        ("payments", "0002_payment_method_validation"),
        ("reporting", "0004_transaction_counts"),
        ("transactions", "0011_account_validation_and_entry_descriptions"),
    ]

    operations = [company_keys(*MERCHANT_OWNED)]
