"""The notice-of-change addenda record (type 7, addenda type 98) and its corrected-data field."""

from __future__ import annotations

from nacha.fields import A, N, ascii_upper, render

NOC_ADDENDA = (
    ("record_type", 1, N),
    ("addenda_type", 2, N),
    ("change_code", 3, A),
    ("original_trace", 15, N),
    ("reserved", 6, A),
    ("original_receiving_dfi", 8, N),
    ("corrected_data", 29, A),
    ("reserved_2", 15, A),
    ("trace_number", 15, N),
)


# Where each notice-of-change code puts the corrected values inside the 29-character corrected-data field.
CORRECTED_DATA_LAYOUT: dict[str, tuple[tuple[str, int, int], ...]] = {
    "C01": (("accountNumber", 0, 17),),
    "C02": (("routingNumber", 0, 9),),
    "C03": (("routingNumber", 0, 9), ("accountNumber", 12, 29)),
    "C04": (("name", 0, 22),),
    "C05": (("transactionCode", 0, 2),),
    "C06": (("accountNumber", 0, 17), ("transactionCode", 20, 22)),
    "C07": (("routingNumber", 0, 9), ("accountNumber", 9, 26), ("transactionCode", 26, 28)),
}


def corrected_data(change_code: str, values: dict[str, str]) -> str:
    """The 29-character corrected-data field of a NOC addenda for the given corrected values."""
    buffer = [" "] * 29
    for name, start, end in CORRECTED_DATA_LAYOUT.get(change_code, ()):
        text = ascii_upper(values.get(name, ""))[: end - start].ljust(end - start)
        buffer[start:end] = list(text)
    return "".join(buffer)


def parse_corrected_data(change_code: str, data: str) -> dict[str, str]:
    values = {}
    for name, start, end in CORRECTED_DATA_LAYOUT.get(change_code, ()):
        value = data[start:end].strip()
        if value:
            values[name] = value
    return values


def noc_addenda(
    *, change_code: str, original_trace: str, original_routing: str, corrected: dict[str, str], trace_number: str
) -> str:
    return render(
        NOC_ADDENDA,
        {
            "record_type": "7",
            "addenda_type": "98",
            "change_code": change_code,
            "original_trace": original_trace,
            "original_receiving_dfi": original_routing[:8],
            "corrected_data": corrected_data(change_code, corrected),
            "trace_number": trace_number,
        },
    )
