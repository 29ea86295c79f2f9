"""The independent NACHA reader the whole suite runs over every file it writes (tests/conftest.py `outbound_dir`,
tests/nacha_check.py): it passes what `originate` writes and catches what a bank would reject."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import nacha_check
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run

pytestmark = pytest.mark.django_db


def _written(company) -> str:
    bank_txn(company, amount=1500, routing_number="021000021")
    bank_txn(company, type="Credit", amount=700, standard_entry_class_code="PPD", routing_number="091000019")
    (path,) = run("originate", "--at", MONDAY_MORNING)["files"]
    return Path(path).read_text()


def _changed(text: str, line_number: int, column: int, character: str) -> str:
    lines = text.split("\n")
    line = lines[line_number]
    lines[line_number] = line[:column] + character + line[column + 1 :]
    return "\n".join(lines)


def test_a_file_originate_wrote_passes_the_independent_readers(company):
    assert nacha_check.problems(_written(company)) == []


def test_one_cent_more_on_an_entry_is_caught(company):
    text = _written(company)
    entry = next(number for number, line in enumerate(text.split("\n")) if line.startswith("6"))
    amount_last_digit = text.split("\n")[entry][38]
    found = nacha_check.problems(_changed(text, entry, 38, str((int(amount_last_digit) + 1) % 10)))
    assert any("achkit BAD_BATCH" in problem for problem in found), found


def test_a_wrong_routing_check_digit_and_a_short_record_are_caught(company):
    text = _written(company)
    entry = next(number for number, line in enumerate(text.split("\n")) if line.startswith("6"))
    check_digit = text.split("\n")[entry][11]
    assert any(
        "BAD_ROUTING_CHECKSUM" in problem
        for problem in nacha_check.problems(_changed(text, entry, 11, str((int(check_digit) + 1) % 10)))
    )
    lines = text.split("\n")
    lines[entry] = lines[entry][:90]
    assert any("BAD_RECORD_LEN" in problem for problem in nacha_check.problems("\n".join(lines)))
