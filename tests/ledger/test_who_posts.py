"""Only the state owner posts (docs/ledger.md): nothing but ledger/postings.py writes an entry or a posting, and
nothing but transactions/state.py calls it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.database_free

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    path
    for path in ROOT.glob("*/**/*.py")
    if path.parts[len(ROOT.parts)] not in {"tests", ".venv", "bench"} and "migrations" not in path.parts
]
WRITES = re.compile(r"\b(Posting|JournalEntry)\.objects\.(create|bulk_create|get_or_create|update_or_create)\b|"
                    r"INSERT INTO ledger_")  # fmt: skip
POSTS = re.compile(r"\b(template_post|entry_post)\b")


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_only_the_write_path_writes_the_books():
    writers = {_relative(path) for path in SOURCES if WRITES.search(path.read_text())}
    assert writers == {"ledger/postings.py"}


def test_only_the_state_owner_posts():
    callers = {_relative(path) for path in SOURCES if POSTS.search(path.read_text())} - {"ledger/postings.py"}
    assert callers == {"transactions/state.py"}
