"""What an account, routing or card number is: ASCII digits only, everywhere they enter the service.

`\\d` and `str.isdigit` accept any Unicode digit (`٩`, fullwidth `９`, superscript `²`); such a number is stored
as given but written to a NACHA file without the character, or folded to another account: a debit to someone
else. Every entry point (charges, saved methods, NOC corrections, return files) asks this module."""

from __future__ import annotations

from stdnum import luhn
from stdnum.us import rtn

ACCOUNT_NUMBER_LENGTHS = (4, 17)
ROUTING_NUMBER_LENGTH = 9
CARD_NUMBER_LENGTHS = (12, 19)
CVV_LENGTHS = (3, 4)


def is_ascii_digits(value: object, *, min_length: int = 1, max_length: int | None = None) -> bool:
    """`value` is a string of ASCII digits 0-9 whose length is in [min_length, max_length]. (`isascii` first: of
    ASCII characters only 0-9 are digits to `isdigit`, and the two are cheaper than the pattern, which a return
    file's reader asks twice an item.)"""
    if not isinstance(value, str) or not (value.isascii() and value.isdigit()):
        return False
    return min_length <= len(value) <= (max_length if max_length is not None else len(value))


def is_account_number(value: object) -> bool:
    low, high = ACCOUNT_NUMBER_LENGTHS
    return is_ascii_digits(value, min_length=low, max_length=high)


def is_routing_number_shape(value: object) -> bool:
    return is_ascii_digits(value, min_length=ROUTING_NUMBER_LENGTH, max_length=ROUTING_NUMBER_LENGTH)


def is_routing_number(value: object) -> bool:
    """Nine ASCII digits with a valid ABA check digit."""
    return is_routing_number_shape(value) and rtn.is_valid(value)


def is_card_number(value: object) -> bool:
    """12 to 19 ASCII digits with a valid Luhn check digit."""
    low, high = CARD_NUMBER_LENGTHS
    return is_ascii_digits(value, min_length=low, max_length=high) and luhn.is_valid(value)


def is_cvv(value: object) -> bool:
    low, high = CVV_LENGTHS
    return is_ascii_digits(value, min_length=low, max_length=high)


CARD_HIDDEN_MINIMUM = 6  # PCI DSS 3.4.1: at most first six + last four shown, and never so many that few remain
CARD_SHOWN_FIRST_MAXIMUM = 6
CARD_SHOWN_LAST = 4


def card_shown_parts(card_number: str) -> tuple[str, str]:
    """The leading and trailing digits of a PAN that may be shown or stored: the last four, and up to six
    leading digits while at least CARD_HIDDEN_MINIMUM stay hidden (16 digits: 6 + 4; 13 digits: 3 + 4)."""
    shown_first = max(0, min(CARD_SHOWN_FIRST_MAXIMUM, len(card_number) - CARD_HIDDEN_MINIMUM - CARD_SHOWN_LAST))
    return card_number[:shown_first], card_number[-CARD_SHOWN_LAST:]


def card_mask(card_number: str) -> str:
    """`411111******1111`: the shown parts with one `*` for each hidden digit."""
    first, last = card_shown_parts(card_number)
    return first + "*" * (len(card_number) - len(first) - len(last)) + last
