"""The file control record (type 9)."""

from __future__ import annotations

from nacha.fields import A, N

FILE_CONTROL = (
    ("record_type", 1, N),
    ("batch_count", 6, N),
    ("block_count", 6, N),
    ("entry_addenda_count", 8, N),
    ("entry_hash", 10, N),
    ("debit_total", 12, N),
    ("credit_total", 12, N),
    ("reserved", 39, A),
)
