"""The batch header record (type 5) and its service class."""

from __future__ import annotations

from nacha.fields import A, N, X

BATCH_HEADER = (
    ("record_type", 1, N),
    ("service_class_code", 3, N),
    ("company_name", 16, A),
    ("company_discretionary_data", 20, A),
    ("company_identification", 10, X),
    ("sec_code", 3, A),
    ("entry_description", 10, A),
    ("descriptive_date", 6, A),
    ("effective_entry_date", 6, N),
    ("settlement_date", 3, A),
    ("originator_status_code", 1, A),
    ("originating_dfi", 8, N),
    ("batch_number", 7, N),
)


SERVICE_CLASS_MIXED, SERVICE_CLASS_CREDITS, SERVICE_CLASS_DEBITS = "200", "220", "225"


def service_class(*, has_debits: bool, has_credits: bool) -> str:
    if has_debits and has_credits:
        return SERVICE_CLASS_MIXED
    return SERVICE_CLASS_DEBITS if has_debits else SERVICE_CLASS_CREDITS
