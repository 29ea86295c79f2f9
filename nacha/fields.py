"""What every NACHA record is made of: 94 characters of fields, each numeric, alphanumeric or exact, rendered
from a layout table of (field, width, kind) and parsed back by the same table."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

RECORD_LENGTH = 94


BLOCKING_FACTOR = 10


PADDING_RECORD = "9" * RECORD_LENGTH


# Numeric: ASCII digits, zero-filled, right-justified. Alphanumeric: folded to upper-case ASCII, space-filled,
# left-justified (names, descriptions). Exact: printable ASCII written as given, space-filled: an identifier that
# folding or truncating would turn into another one (an account number, a company or routing identification).
N, A, X = "N", "A", "X"


class NachaFormatError(ValueError):
    """A file that is not a well-formed NACHA file (the message names the line)."""


class NachaFieldError(ValueError):
    """A value the writer cannot put into its field exactly; the message names the field, never the value."""


def is_ascii_digits(text: str) -> bool:
    """ASCII 0-9 only, at least one (`isdigit` alone takes Arabic-Indic, fullwidth and superscript digits)."""
    return text.isascii() and text.isdigit()


def _is_printable_ascii(text: str) -> bool:
    """Every character in 32-126 (isprintable is False for the control characters and DEL)."""
    return text.isascii() and text.isprintable()


def ascii_upper(value: str) -> str:
    """NACHA alphanumeric fields: upper-case ASCII only (accents folded, other characters dropped)."""
    if _is_printable_ascii(value):  # most names and descriptions: nothing to fold or drop
        return value.upper()
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode()
    return "".join(ch for ch in folded.upper() if 32 <= ord(ch) < 127)


def render(layout: Sequence[tuple[str, int, str]], values: dict[str, object]) -> str:
    parts = []
    for name, width, kind in layout:
        value = values.get(name, "")
        text = str(value)
        if kind == N:
            if text != "" and not is_ascii_digits(text):
                raise NachaFieldError(f"{name} must be ASCII digits")
            if len(text) > width:
                raise NachaFieldError(f"{name} does not fit in {width} digits")
            parts.append(text.rjust(width, "0"))
        elif kind == X:
            if not _is_printable_ascii(text):
                raise NachaFieldError(f"{name} must be printable ASCII")
            if len(text) > width:
                raise NachaFieldError(f"{name} does not fit in {width} characters")
            parts.append(text.ljust(width))
        else:
            parts.append(ascii_upper(text)[:width].ljust(width))
    record = "".join(parts)
    assert len(record) == RECORD_LENGTH, (layout[0], len(record))  # noqa: S101 - layouts are static
    return record


def _slices(layout: Sequence[tuple[str, int, str]]) -> tuple[tuple[str, int, int], ...]:
    """(name, start, end) of each field of `layout`."""
    slices, position = [], 0
    for name, width, _kind in layout:
        slices.append((name, position, position + width))
        position += width
    return tuple(slices)


def field_slice(layout: Sequence[tuple[str, int, str]], name: str) -> slice:
    return next(slice(start, end) for field_name, start, end in _slices(layout) if field_name == name)


def parse(layout: Sequence[tuple[str, int, str]], record: str) -> dict[str, str]:
    return {name: record[start:end] for name, start, end in _slices(layout)}
