"""The entry detail record (type 6): transaction codes, the entry as the domain builds it, and its record."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from nacha.fields import A, N, X, render

ENTRY_DETAIL = (
    ("record_type", 1, N),
    ("transaction_code", 2, N),
    ("receiving_dfi", 8, N),
    ("check_digit", 1, N),
    ("account_number", 17, X),
    ("amount", 10, N),
    ("individual_id", 15, A),
    ("individual_name", 22, A),
    ("discretionary_data", 2, A),
    ("addenda_indicator", 1, N),
    ("trace_number", 15, N),
)


# (transaction type, account type) -> transaction code; a return or NOC of an entry uses the code one below.
TRANSACTION_CODES: dict[tuple[str, str], str] = {
    ("Debit", "Checking"): "27",
    ("Debit", "Savings"): "37",
    ("Credit", "Checking"): "22",
    ("Credit", "Savings"): "32",
}


# A prenote (zero-dollar pre-notification) uses the code one above its live entry's: 28, 38, 23, 33.
PRENOTE_TRANSACTION_CODES: dict[tuple[str, str], str] = {
    key: code[0] + str(int(code[1]) + 1) for key, code in TRANSACTION_CODES.items()
}


ACCOUNT_TYPE_BY_CODE_PREFIX = {"2": "Checking", "3": "Savings"}


def account_type_for_code(transaction_code: str) -> str | None:
    return ACCOUNT_TYPE_BY_CODE_PREFIX.get(transaction_code[:1])


def return_transaction_code(original_code: str) -> str:
    """27 -> 26, 22 -> 21, 37 -> 36, 32 -> 31: the automated return / NOC code for the original's account."""
    return original_code[0] + str(int(original_code[1]) - 1)


@dataclass(frozen=True)
class Entry:
    transaction_code: str
    routing_number: str  # 9 digits: 8-digit DFI identification + check digit
    account_number: str
    amount: int
    individual_id: str
    individual_name: str
    trace_number: str
    addenda: tuple[str, ...] = ()  # rendered addenda records (returns and NOCs)
    discretionary_data: str = ""  # positions 77-78: the Payment Type Code of a WEB or TEL entry

    @property
    def is_debit(self) -> bool:
        return self.transaction_code[1] in "6789"


def _entry_record(entry: Entry) -> str:
    return render(
        ENTRY_DETAIL,
        {
            "record_type": "6",
            "transaction_code": entry.transaction_code,
            "receiving_dfi": entry.routing_number[:8],
            "check_digit": entry.routing_number[8],
            "account_number": entry.account_number,
            "amount": entry.amount,
            "individual_id": entry.individual_id,
            "individual_name": entry.individual_name,
            "discretionary_data": entry.discretionary_data,
            "addenda_indicator": "1" if entry.addenda else "0",
            "trace_number": entry.trace_number,
        },
    )


def entry_records(entries: Iterable[Entry]) -> Iterator[str]:
    """Each entry's detail record, then its addenda records."""
    for entry in entries:
        yield _entry_record(entry)
        yield from entry.addenda
