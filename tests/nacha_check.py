"""Every NACHA file the tests write is read back by readers that share no code with transactions.lifecycle.nacha:
achkit (PyPI, pinned in requirements.txt; the stricter of the two candidates, see docs/ach-rules.md) and our own
tests/lifecycle/nacha_reader.py. tests/conftest.py runs `problems` over each file at the end of every test."""

from __future__ import annotations

from achkit.validate import validate as achkit_validate

from tests.lifecycle import nacha_reader


def problems(text: str) -> list[str]:
    """What the independent readers find wrong with one origination file; empty when it is right."""
    found = [
        f"achkit {error['code']} at {error['field']}: {error['message']}" for error in achkit_validate(text)["errors"]
    ]
    try:
        nacha_reader.read(text)
    except nacha_reader.Invalid as exc:
        found.append(f"nacha_reader: {exc}")
    return found
