"""The return addenda record (type 7, addenda type 99)."""

from __future__ import annotations

from nacha.fields import A, N, render

RETURN_ADDENDA = (
    ("record_type", 1, N),
    ("addenda_type", 2, N),
    ("reason_code", 3, A),
    ("original_trace", 15, N),
    ("date_of_death", 6, A),
    ("original_receiving_dfi", 8, N),
    ("information", 44, A),
    ("trace_number", 15, N),
)


def return_addenda(*, reason_code: str, original_trace: str, original_routing: str, trace_number: str) -> str:
    return render(
        RETURN_ADDENDA,
        {
            "record_type": "7",
            "addenda_type": "99",
            "reason_code": reason_code,
            "original_trace": original_trace,
            "original_receiving_dfi": original_routing[:8],
            "trace_number": trace_number,
        },
    )
