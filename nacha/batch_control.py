"""The batch control record (type 8) and the entry hash it shares with the file control."""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass
class Totals:
    """What a batch or file control record adds up, from the integers the entries carry: the entry and addenda
    records, the sum of the entries' 8-digit receiving DFI identifications, the debits and the credits (cents);
    whether a debit or a credit is among them (a batch's service class: a zero-dollar prenote counts)."""

    count: int = 0
    hash: int = 0
    debits: int = 0
    credits: int = 0
    has_debits: bool = False
    has_credits: bool = False

    def entry_add(self, *, amount: int, is_debit: bool, receiving_dfi: int, addenda: int = 0) -> None:
        self.count += 1 + addenda
        self.hash += receiving_dfi
        if is_debit:
            self.debits += amount
            self.has_debits = True
        else:
            self.credits += amount
            self.has_credits = True

    def add(self, other: Totals) -> None:
        self.count += other.count
        self.hash += other.hash
        self.debits += other.debits
        self.credits += other.credits
        self.has_debits |= other.has_debits
        self.has_credits |= other.has_credits

    def control_values(self) -> dict[str, object]:
        """The four fields a batch or file control record carries of them."""
        return {
            "entry_addenda_count": self.count,
            "entry_hash": entry_hash(self.hash),
            "debit_total": self.debits,
            "credit_total": self.credits,
        }
