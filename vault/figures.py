"""Figures as people read them (admin pages, titles): cents as dollars, fractions as percentages."""

from __future__ import annotations

from decimal import Decimal


def dollars(cents: int | None) -> str:
    """1500000 -> "$15,000.00"; -250 -> "-$2.50"; None -> "-"."""
    if cents is None:
        return "-"
    sign = "-" if cents < 0 else ""
    return f"{sign}${Decimal(abs(cents)).scaleb(-2):,.2f}"


def percent(rate: float | None) -> str:
    """0.08333333333333333 -> "8.33%"; None (no rate: nothing to divide by) -> "n/a"."""
    return "n/a" if rate is None else f"{rate:.2%}"
