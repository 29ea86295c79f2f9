"""What a chunk of a return file does is one ordered list of named steps (transactions/ach/answers.py): the list
is held here, with the reasons for its order; a new step is a line of it."""

from __future__ import annotations

import inspect

import pytest

from transactions.ach import answers, returns
from transactions.ach.answers import ANSWER_STEPS

pytestmark = pytest.mark.database_free

NAMES = [name for name, _step in ANSWER_STEPS]


def _before(first: str, then: str) -> bool:
    return NAMES.index(first) < NAMES.index(then)


def test_the_steps_in_their_order():
    assert NAMES == [
        "methods blocked",
        "mandates revoked",
        "methods corrected",
        "method events",
        "returned rows moved",
        "answers recorded",
        "retries scheduled",
        "moves announced",
        "retries announced",
        "unsent credits voided",
        "notices marked",
        "return-rate follow-ups",
        "accounts blocked",
        "validations answered",
    ]


@pytest.mark.parametrize(
    ("first", "then", "why"),
    [
        ("methods blocked", "method events", "a block's event is written with the corrections', in file order"),
        ("methods corrected", "method events", "a correction's event is written after the correction"),
        ("returned rows moved", "answers recorded", "the row carries its code before the return's trigger copies it"),
        ("answers recorded", "moves announced", "the returned events read each row's return entry"),
        ("retries scheduled", "moves announced", "the returned events show the next presentment"),
        ("moves announced", "retries announced", "a retry's own events come after the return's"),
        ("returned rows moved", "accounts blocked", "an account block names returned rows"),
    ],
)
def test_a_step_that_reads_what_another_writes_comes_after_it(first, then, why):
    assert _before(first, then), why


def test_each_step_is_a_function_of_the_answers_alone_and_the_import_runs_them_all():
    for _name, step in ANSWER_STEPS:
        assert list(inspect.signature(step).parameters) == ["answers"]
        assert step.__module__ == answers.__name__
    assert len(set(NAMES)) == len(NAMES)
    assert issubclass(returns._Chunk, answers.Answers)
    assert "answers_apply(chunk)" in inspect.getsource(returns._group_apply)
