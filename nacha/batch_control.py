"""The batch control record (type 8) and the entry hash it shares with the file control."""

from __future__ import annotations

from nacha.fields import A, N, X

BATCH_CONTROL = (
    ("record_type", 1, N),
    ("service_class_code", 3, N),
    ("entry_addenda_count", 6, N),
    ("entry_hash", 10, N),
    ("debit_total", 12, N),
    ("credit_total", 12, N),
    ("company_identification", 10, X),
    ("message_authentication_code", 19, A),
    ("reserved", 6, A),
    ("originating_dfi", 8, N),
    ("batch_number", 7, N),
)


def entry_hash(total: int) -> str:
    """The Entry Hash of a batch or file control: the sum of its entries' 8-digit routing prefixes, its last 10
    digits."""
    return str(total)[-10:]
