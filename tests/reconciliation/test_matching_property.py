"""The matcher against a labelled corpus from the test bank (tests/reconciliation/corpus.py): settlements per file
and per batch, split settlements, fees, interest, other businesses' lines (some of our own amounts), returns and
late returns, lines posted a banking day late. No false match, ever (each one is named), and at least 99.5% of the
lines that are ours or the bank's matched automatically; other businesses' lines stay unmatched. The 10,000-line
run of the same corpus is bench/reconcile.py."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconciliation import matching
from tests.reconciliation.corpus import corpus_make, judged

# The matcher reads no clock; the fixture only keeps the dates these tests name honest (tests/test_pinned_clock.py).
pytestmark = pytest.mark.usefixtures("ordinary_banking_day")


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(min_value=0, max_value=2**32),
    posting=st.sampled_from(("file", "batch")),
    noise=st.booleans(),
)
def test_no_false_match_and_nearly_every_line_matched(seed, posting, noise):
    corpus = corpus_make(seed=seed, days=3, files_a_day=4, posting=posting, noise=noise)
    lines, truth = corpus.lines()
    proposals = matching.match_all(lines, corpus.expected)
    right, false = judged(proposals, truth, corpus.expected_truth)
    assert false == []
    ours = [line.id for line in lines if truth[line.id] != ("foreign",)]
    assert len(right) >= 0.995 * len(ours)
    assert not any(line.taken for line in lines if truth[line.id] == ("foreign",))


def _line(id_: int, amount: int, reference: str, *, direction: str = "debit", day: date = date(2026, 12, 8)):
    return matching.Line(id=id_, amount=amount, direction=direction, day=day, reference=reference)


def _expected(id_: int, amount: int, reference: str, group: str = "", *, day: date = date(2026, 12, 8)):
    return matching.Expected(id=id_, amount=amount, direction="debit", day=day, reference=reference, group=group)


def test_one_line_for_a_return_files_items_matches_them_all_by_its_group():
    items = [_expected(1, 500, "000000000000001", "RET_A"), _expected(2, 700, "000000000000002", "RET_A")]
    (proposal,) = matching.match_all([_line(1, 1200, "RET_A")], items)
    assert proposal.rule == "reference_group" and {item.id for item in proposal.expected} == {1, 2}


def test_a_line_without_reference_is_matched_by_amount_only_when_nothing_else_could_be():
    alone = matching.match_all([_line(1, 900, "")], [_expected(1, 900, "F1")])
    assert [proposal.rule for proposal in alone] == ["amount_window"]
    two_expected = matching.match_all([_line(1, 900, "")], [_expected(1, 900, "F1"), _expected(2, 900, "F2")])
    two_lines = matching.match_all([_line(1, 900, ""), _line(2, 900, "")], [_expected(1, 900, "F1")])
    assert two_expected == [] and two_lines == []


def test_a_line_outside_the_window_or_short_of_the_amount_is_not_matched():
    far = matching.match_all([_line(1, 900, "F1", day=date(2026, 12, 21))], [_expected(1, 900, "F1")])
    short = matching.match_all([_line(1, 899, "F1")], [_expected(1, 900, "F1")])
    assert far == [] and short == []
