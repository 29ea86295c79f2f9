"""A test that names a literal date pins its clock (issue 57 step 0; newcomer review 2026-12-07 D1): rows it makes at
the clock's time and commands it runs at a fixed instant agree only while the calendar does, so such a test passes
today and fails next month. Pinned means a fixture that travels (`ordinary_banking_day`, `monday_early`, any fixture
whose body calls `time_machine.travel`), a `time_machine.travel` in the test itself, or the module's `pytestmark`
using such a fixture. The tests that named dates unpinned before this scan are listed in `clock_baseline.txt`: CI's
SQLite lane runs the whole suite a year and a day ahead, which proves them, and the list may only shrink."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent
BASELINE = TESTS / "clock_baseline.txt"
DATE_TEXT = re.compile(r"\b20\d\d-[01]\d-[0-3]\d")


def _names_a_date(node: ast.AST, date_constants: frozenset[str]) -> bool:
    """A date the code uses: a docstring (a string standing alone as a statement) only tells, so it is not one."""
    told = {
        id(sub.value) for sub in ast.walk(node) if isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Constant)
    }
    for sub in ast.walk(node):
        if id(sub) in told:
            continue
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and DATE_TEXT.search(sub.value):
            return True
        if isinstance(sub, ast.Call) and _called(sub) in {"date", "datetime"} and sub.args:
            year = sub.args[0]
            if isinstance(year, ast.Constant) and isinstance(year.value, int) and year.value > 2000:
                return True
        if isinstance(sub, ast.Name) and sub.id in date_constants:
            return True
    return False


def _called(call: ast.Call) -> str:
    return getattr(call.func, "id", None) or getattr(call.func, "attr", "")


def _travels(node: ast.AST) -> bool:
    return any(
        isinstance(sub, ast.Attribute) and sub.attr == "travel" and getattr(sub.value, "id", "") == "time_machine"
        for sub in ast.walk(node)
    )


def _is_fixture(function: ast.FunctionDef) -> bool:
    return any("fixture" in ast.unparse(decorator) for decorator in function.decorator_list)


def _functions(tree: ast.AST):
    return (node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))


def unpinned_dated_tests(root: Path) -> set[str]:
    """`path::test` for each test under `root` that names a literal date (or a constant holding one, of its own
    module or imported from another test module) and whose clock nothing pins."""
    trees = {path: ast.parse(path.read_text()) for path in sorted(root.rglob("*.py"))}
    constants, pinning = {}, set()
    for path, tree in trees.items():
        constants[_module_name(root, path)] = {
            target.id
            for node in tree.body
            if isinstance(node, ast.Assign) and _names_a_date(node.value, frozenset())
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        pinning |= {function.name for function in _functions(tree) if _is_fixture(function) and _travels(function)}
    found = set()
    for path, tree in trees.items():
        if not path.name.startswith("test_"):
            continue
        marks = " ".join(ast.unparse(node) for node in ast.walk(tree) if _assigns(node, "pytestmark"))
        if any(re.search(rf"\b{name}\b", marks) for name in pinning):
            continue
        date_constants = frozenset(_visible_constants(tree, constants, _module_name(root, path)) - pinning)
        for function in _functions(tree):
            if not function.name.startswith("test_") or not _names_a_date(function, date_constants):
                continue
            used = {argument.arg for argument in function.args.args}
            decorators = " ".join(ast.unparse(decorator) for decorator in function.decorator_list)
            if used & pinning or _travels(function) or any(re.search(rf"\b{n}\b", decorators) for n in pinning):
                continue
            found.add(f"{path.relative_to(root).as_posix()}::{function.name}")
    return found


def _module_name(root: Path, path: Path) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts)


def _visible_constants(tree: ast.Module, constants: dict[str, set[str]], own: str) -> set[str]:
    """The module's own date constants and those it imports from another test module (`from tests.x import NAME`)."""
    visible = set(constants.get(own, ()))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            source = constants.get(node.module.removeprefix("tests."), set())
            visible |= {alias.asname or alias.name for alias in node.names if alias.name in source}
    return visible


def _assigns(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Assign) and any(getattr(target, "id", "") == name for target in node.targets)


def test_no_new_test_names_a_date_with_its_clock_unpinned():
    baseline = set(BASELINE.read_text().split())
    found = unpinned_dated_tests(TESTS)
    assert sorted(found - baseline) == [], "pin the clock of these tests (fixture `ordinary_banking_day`, say)"
    assert sorted(baseline - found) == [], "pinned or gone since: take them off tests/clock_baseline.txt"


def test_the_scan_sees_an_unpinned_date_and_each_way_of_pinning(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "import pytest, time_machine\nSTART = '2026-12-07T15:00:00Z'\n"
        "@pytest.fixture\ndef pinned():\n    with time_machine.travel(START):\n        yield\n"
    )
    (tmp_path / "test_a.py").write_text(
        "from datetime import date\nfrom conftest import START\n"
        "def test_literal():\n    assert date(2026, 12, 7)\n"
        "def test_text():\n    run('settle', '--at', '2026-12-07T22:00:01Z')\n"
        "def test_constant():\n    run('settle', '--at', START)\n"
        "def test_by_fixture(pinned):\n    assert date(2026, 12, 7)\n"
        "def test_by_travel():\n    with time_machine.travel(START):\n        assert date(2026, 12, 7)\n"
        "def test_no_date():\n    '''Review 2026-12-07 D1.'''\n    assert 1\n"
    )
    (tmp_path / "test_b.py").write_text(
        "import pytest\npytestmark = pytest.mark.usefixtures('pinned')\n"
        "def test_module_pinned():\n    date(2026, 1, 2)\n"
    )
    assert unpinned_dated_tests(tmp_path) == {
        "test_a.py::test_literal",
        "test_a.py::test_text",
        "test_a.py::test_constant",
    }
