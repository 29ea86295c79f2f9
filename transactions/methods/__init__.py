"""The payment methods (CONTRACT 5, 6): one module each on one base (transactions.methods.base), and this
registry, from which every set of methods is derived. Nothing outside this package compares a method's
name (tests/transactions/test_method_home.py): it asks the method's flags and hooks."""

from __future__ import annotations

from transactions.methods.ach import ACH
from transactions.methods.base import Outcome, PaymentMethodKind
from transactions.methods.card import CARD
from transactions.methods.rcc import RCC
from transactions.methods.rtp import RTP

METHODS: dict[str, PaymentMethodKind] = {kind.code: kind for kind in (ACH, RCC, RTP, CARD)}


def method_kind(code: str) -> PaymentMethodKind:
    return METHODS[code]


def _codes(flag: str, wanted: bool = True) -> tuple[str, ...]:
    return tuple(code for code, kind in METHODS.items() if getattr(kind, flag) is wanted)


BANK_METHODS = _codes("pays_by_card", False)  # paymentDetails is a bank account; a saved method charges these
ORIGINATED_METHODS = _codes("in_nacha_file")  # `originate` puts them in NACHA files
RETURNABLE_METHODS = _codes("returnable")  # come back as ACH returns: retries, return rates, return-rate holds
CAPTURED_BY_SETTLE_METHODS = _codes("captured_by_settle")

__all__ = [
    "ACH",
    "BANK_METHODS",
    "CAPTURED_BY_SETTLE_METHODS",
    "CARD",
    "METHODS",
    "ORIGINATED_METHODS",
    "RCC",
    "RETURNABLE_METHODS",
    "RTP",
    "Outcome",
    "PaymentMethodKind",
    "method_kind",
]
