"""The walk the architecture scans share: every product module below a root (no tests, migrations, venv or var),
parsed, with what a scan finds in it as `path:line: what` lines."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

NOT_PRODUCT = frozenset({".venv", "tests", "var"})


def product_findings(
    root: Path, findings: Callable[[ast.AST], list[tuple[int, str]]], *, home: tuple[str, ...], also_skip=frozenset()
) -> list[str]:
    """`findings` over each module outside `home` (the package allowed to do what the scan looks for)."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        parts = relative.parts
        if parts[0] in NOT_PRODUCT | also_skip or "migrations" in parts or parts[: len(home)] == home:
            continue
        found += [f"{relative.as_posix()}:{line}: {what}" for line, what in findings(ast.parse(path.read_text()))]
    return found
