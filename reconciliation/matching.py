"""The matcher: statement lines against expected payments, in memory, by an ordered list of named rules (RULES).
Each rule takes what the rules before it left and proposes matches; a line or an expectation is in one match at
most. Pure Python over plain items (no database), so that the property test and the benchmark hold the same code
`reconcile` runs."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from itertools import combinations

from transactions import calendar

# How far from its expected day the bank may post a payment, in banking days, each way.
WINDOW_BEFORE, WINDOW_AFTER = 2, 2
# The bank's own lines, by type code (BAI2, and camt.053's domain/family/sub-family): nothing of ours to expect.
BANK_OWN = {
    "698": "bank_fee",  # BAI2 Miscellaneous Fees
    "ACMT/MDOP/CHRG": "bank_fee",  # camt: account management, miscellaneous debit operations, charges
    "354": "bank_interest",  # BAI2 Interest Credit
    "ACMT/MCOP/INTR": "bank_interest",  # camt: miscellaneous credit operations, interest
}
# A line's reference names one of our references, or one piece of it after this mark (a file posted per batch).
PIECE = ":"
# The most lines of one reference whose every set the split rule tries (2**12 sets); past it, nearest days only.
SUBSET_LIMIT = 12


@dataclass(eq=False)
class Line:
    id: int
    amount: int
    direction: str
    day: date
    reference: str
    type_code: str = ""
    taken: bool = False


@dataclass(eq=False)
class Expected:
    id: int
    amount: int
    direction: str
    day: date
    reference: str
    group: str = ""
    taken: bool = False


@dataclass(frozen=True)
class Proposal:
    rule: str
    lines: tuple[Line, ...]
    expected: tuple[Expected, ...] = ()


@lru_cache(maxsize=4096)
def window(day: date) -> tuple[date, date]:
    """The value dates a payment expected on `day` may carry."""
    return calendar.business_days_before(day, WINDOW_BEFORE), calendar.add_business_days(day, WINDOW_AFTER)


def in_window(line: Line, expected: Expected) -> bool:
    low, high = window(expected.day)
    return low <= line.day <= high


@dataclass
class Book:
    """What is left to match, indexed the ways the rules look things up."""

    lines: list[Line]
    expected: list[Expected]
    by_reference: dict[tuple[str, str], list[Expected]] = field(default_factory=lambda: defaultdict(list))
    by_group: dict[tuple[str, str], list[Expected]] = field(default_factory=lambda: defaultdict(list))

    def __post_init__(self) -> None:
        for item in self.expected:
            self.by_reference[(item.reference, item.direction)].append(item)
            if item.group:
                self.by_group[(item.group, item.direction)].append(item)

    def open_lines(self) -> Iterable[Line]:
        return (line for line in self.lines if not line.taken)


def _take(rule: str, lines: Iterable[Line], expected: Iterable[Expected] = ()) -> Proposal:
    lines, expected = tuple(lines), tuple(expected)
    for item in (*lines, *expected):
        item.taken = True
    return Proposal(rule, lines, expected)


def bank_own(book: Book) -> Iterable[Proposal]:
    for line in book.open_lines():
        rule = BANK_OWN.get(line.type_code)
        if rule is not None:
            yield _take(rule, [line])


def reference(book: Book) -> Iterable[Proposal]:
    """One line, one expectation: the same reference and direction, the same amount, inside the window (the
    nearest expected day when two qualify)."""
    for line in book.open_lines():
        candidates = [
            item
            for item in book.by_reference.get((line.reference, line.direction), ())
            if not item.taken and item.amount == line.amount and in_window(line, item)
        ]
        if candidates:
            best = min(candidates, key=lambda item: (abs((item.day - line.day).days), item.id))
            yield _take("reference", [line], [best])


def _nearest(item_day: date, line: Line) -> tuple[int, int]:
    return abs((line.day - item_day).days), line.id


def _pieces_summing(lines: list[Line], item: Expected) -> tuple[Line, ...] | None:
    """The set of `lines` (at most SUBSET_LIMIT of them) that adds up to the expectation, nearest its day first;
    None when no set does, or when there are too many lines to try them all."""
    if len(lines) > SUBSET_LIMIT:
        return None
    ordered = sorted(lines, key=lambda line: _nearest(item.day, line))
    best, best_cost = None, None
    for size in range(1, len(ordered) + 1):
        for combination in combinations(ordered, size):
            if sum(line.amount for line in combination) != item.amount:
                continue
            cost = sum(_nearest(item.day, line)[0] for line in combination)
            if best_cost is None or cost < best_cost:
                best, best_cost = combination, cost
    return best


def reference_split(book: Book) -> Iterable[Proposal]:
    """Several lines, one expectation: lines naming one reference (or pieces of it: `NAME:1`, `NAME:2`) in one
    direction that add up to its amount inside its window. Each line first goes to the expectation of that
    reference whose day is nearest; an expectation its nearest lines do not add up to takes the set of the
    lines left in its window that does (a batch the bank posted a day late lands nearer the file's next day)."""
    pieces: dict[tuple[str, str], list[Line]] = defaultdict(list)
    for line in book.open_lines():
        key = (line.reference.split(PIECE, 1)[0], line.direction)
        if key in book.by_reference:
            pieces[key].append(line)
    for key, lines in pieces.items():
        items = sorted(
            (item for item in book.by_reference[key] if not item.taken), key=lambda item: (item.day, item.id)
        )
        nearest: dict[Expected, list[Line]] = defaultdict(list)
        for line in lines:
            inside = [item for item in items if in_window(line, item)]
            if inside:
                nearest[min(inside, key=lambda item: (_nearest(item.day, line), item.id))].append(line)
        for item in items:
            if sum(line.amount for line in nearest[item]) == item.amount and nearest[item]:
                yield _take("reference_split", nearest[item], [item])
        for item in items:
            if item.taken:
                continue
            found = _pieces_summing([line for line in lines if not line.taken and in_window(line, item)], item)
            if found:
                yield _take("reference_split", found, [item])


def reference_group(book: Book) -> Iterable[Proposal]:
    """One line, several expectations: the line names a group (the return file its items came in) and its amount
    is the total of that group's open expectations of its direction inside the window."""
    for line in book.open_lines():
        members = [
            item
            for item in book.by_group.get((line.reference, line.direction), ())
            if not item.taken and in_window(line, item)
        ]
        if len(members) > 1 and sum(item.amount for item in members) == line.amount:
            yield _take("reference_group", [line], members)


def amount_window(book: Book) -> Iterable[Proposal]:
    """A line with no reference at all: matched only when it is the one such line of its amount, direction and
    window and there is exactly one open expectation it could be (never a guess between two)."""
    bare = defaultdict(list)
    for line in book.open_lines():
        if not line.reference and line.type_code not in BANK_OWN:
            bare[(line.amount, line.direction)].append(line)
    for (amount, direction), lines in bare.items():
        if len(lines) != 1:
            continue
        (line,) = lines
        candidates = [
            item
            for item in book.expected
            if not item.taken and item.amount == amount and item.direction == direction and in_window(line, item)
        ]
        if len(candidates) == 1:
            yield _take("amount_window", [line], candidates)


# The order is the policy: the bank's own lines first, then the strongest evidence (a reference and an exact
# amount) before the weaker (a sum of pieces, a group's total), and the amount alone last.
RULES: tuple[tuple[str, Callable[[Book], Iterable[Proposal]]], ...] = (
    ("bank_own", bank_own),
    ("reference", reference),
    ("reference_split", reference_split),
    ("reference_group", reference_group),
    ("amount_window", amount_window),
)


def match_all(lines: list[Line], expected: list[Expected]) -> list[Proposal]:
    book = Book(lines=lines, expected=expected)
    proposals: list[Proposal] = []
    for _name, rule in RULES:
        proposals.extend(rule(book))
    return proposals
