"""The file header record (type 1)."""

from __future__ import annotations

from nacha.fields import A, N, X

FILE_HEADER = (
    ("record_type", 1, N),
    ("priority_code", 2, N),
    ("immediate_destination", 10, X),
    ("immediate_origin", 10, X),
    ("creation_date", 6, N),
    ("creation_time", 4, N),
    ("file_id_modifier", 1, A),
    ("record_size", 3, N),
    ("blocking_factor", 2, N),
    ("format_code", 1, N),
    ("destination_name", 23, A),
    ("origin_name", 23, A),
    ("reference_code", 8, A),
)
