"""A payment method has one home (issue 23, architecture review problem 1): transactions/methods/. Outside it no
product code compares a method's name, spells `Method.ACH` and the like, or filters rows on a literal method;
it asks the method's flags and hooks, and every set of methods is derived from the registry."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source_scan import product_findings
from transactions.methods import (
    BANK_METHODS,
    CAPTURED_BY_SETTLE_METHODS,
    METHODS,
    ORIGINATED_METHODS,
    RETURNABLE_METHODS,
    method_kind,
)
from transactions.models import Method

ROOT = Path(__file__).resolve().parents[2]
HOME = ("transactions", "methods")
NAMES = frozenset(Method.values)
LOOKUPS = frozenset({"filter", "exclude", "get", "Q", "update", "aggregate"})


def _is_name(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_name(element) for element in node.elts)
    return isinstance(node, ast.Attribute) and node.attr in NAMES


def _findings(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in NAMES and getattr(node.value, "id", "").endswith("Method"):
            found.append((node.lineno, f"{node.value.id}.{node.attr}"))
        elif isinstance(node, ast.Compare) and any(map(_is_name, [node.left, *node.comparators])):
            found.append((node.lineno, "compares a method name"))
        elif isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            for keyword in node.keywords:
                field = keyword.arg or ""
                lookup = callee in LOOKUPS and field.split("__")[-1] in {"method", "in", "exact"}
                if "method" in field and (lookup or "__" in field) and _is_name(keyword.value):
                    found.append((node.lineno, f"filters {field} on a method name"))
    return found


def method_names_compared(root: Path) -> list[str]:
    return product_findings(root, _findings, home=HOME)


def test_no_method_name_is_compared_outside_transactions_methods():
    assert method_names_compared(ROOT) == []


def test_the_scan_sees_each_way_of_branching_on_a_name(tmp_path):
    (tmp_path / "branchy.py").write_text(
        "if txn.method == 'CRD': pass\n"
        "ok = method in ('ACH', 'RCC')\n"
        "rows = Transaction.objects.filter(method__in=['RTP'])\n"
        "card = Q(method='CRD')\n"
        "kind = Method.RCC\n"
        "fine = Transaction(method='ACH', type='Debit')\n"
    )
    assert method_names_compared(tmp_path) == [
        "branchy.py:1: compares a method name",
        "branchy.py:2: compares a method name",
        "branchy.py:3: filters method__in on a method name",
        "branchy.py:4: filters method on a method name",
        "branchy.py:5: Method.RCC",
    ]


def test_the_registry_holds_every_method_and_derives_the_sets():
    assert set(METHODS) == NAMES
    assert all(method_kind(code).code == code for code in NAMES)
    assert set(BANK_METHODS) == {"ACH", "RCC", "RTP"}
    assert set(ORIGINATED_METHODS) == {"ACH", "RCC"} == set(RETURNABLE_METHODS)
    assert set(CAPTURED_BY_SETTLE_METHODS) == {"CRD"}
