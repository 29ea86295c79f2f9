"""The tables of weights and names both sample-data seeds draw from (sampledata.seeding row by row, and
sampledata.seeding_sql in sets on PostgreSQL), and the transaction columns they write."""

from __future__ import annotations

# How often sample returns carry each code; the reason texts are the import's (transactions' one table).
RETURN_CODE_WEIGHTS = (
    ("R01", 40),
    ("R02", 12),
    ("R03", 10),
    ("R04", 5),
    ("R07", 5),
    ("R08", 6),
    ("R10", 10),
    ("R16", 3),
    ("R20", 4),
    ("R29", 5),
)
# The codes sample notices carry and the field each shows corrected; texts again from the one table.
SAMPLE_CHANGE_CODES = (
    ("C01", "accountNumber"),
    ("C02", "routingNumber"),
    ("C03", "routingNumber"),
    ("C05", "accountType"),
    ("C06", "accountNumber"),
    ("C07", "routingNumber"),
)
STATUSES = (
    ("Settled", 62),
    ("Pending", 9),
    ("Processing", 7),
    ("Returned", 5),
    ("Voided", 4),
    ("Rejected", 3),
    ("Reversed", 2),
    ("DECLINED", 3),
    ("HELD", 5),
)
METHODS = (("ACH", 70), ("CRD", 15), ("RCC", 8), ("RTP", 7))
FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Katherine", "John", "Margaret", "Linus", "Ken")
LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Johnson", "Backus", "Hamilton", "Torvalds")
COMPANIES = ("Acme Supply", "Globex Corp", "Initech LLC", "Umbrella Health", "Stark Industries", "Wayne Foods")
ROUTING = ("021000021", "011401533", "091000019", "026009593", "121000358", "111000025")
CATEGORIES = ("subscription", "invoice", "payroll", "refund", "donation")

TRANSACTION_COLUMNS = (
    "id", "uuid", "sequence_uuid", "historical_id", "method", "type", "amount", "status",
    "standard_entry_class_code", "effective_date", "is_same_day", "created_at", "external_unique_id", "is_duplicate",
    "rtp_transaction_id", "idempotency_key", "description", "failure_reason", "category", "category_uuid", "sale_at",
    "voided_at", "reversed_at", "reversal_uuid", "name", "account_type", "account_number", "account_number_hash",
    "account_last_four", "routing_number", "card_first_six", "card_last_four", "card_masked", "card_expiration",
    "authorized_at", "auth_response_code", "captured_at", "trace_number", "expected_to_settle_at",
    "late_returned_at", "batch_id", "company_id", "ingestion_file_id", "late_return_settlement_id",
    "settlement_id", "seeded",
)  # fmt: skip
