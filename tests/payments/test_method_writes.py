"""A saved method is written only by payments/ (architecture review problem 5): returns, notices of change,
account validation, reversals and account blocks call payments.services (payment_method_lock, _block, _correct,
the validation state) instead of writing or locking PaymentMethod rows themselves, so the keeper of "one live
account per customer" is never bypassed."""

from __future__ import annotations

import ast
from pathlib import Path

from django.apps import apps

from payments.models import PaymentMethod
from tests.source_scan import product_findings

ROOT = Path(__file__).resolve().parents[2]
# Lock and write calls of a queryset, a manager or a model instance.
WRITES = frozenset(
    {"save", "update", "create", "bulk_create", "bulk_update", "delete", "get_or_create", "update_or_create"}
) | {"select_for_update"}
RELATED = frozenset({"payment_method", "payment_methods"})


def _own_fields() -> frozenset[str]:
    """PaymentMethod's columns that no other model has: writing one names the method."""
    others = {f.attname for m in apps.get_models() if m is not PaymentMethod for f in m._meta.concrete_fields}
    return frozenset({f.attname for f in PaymentMethod._meta.concrete_fields} - others)


OWN_FIELDS = _own_fields()


def _chain(node: ast.AST) -> list[str]:
    """`PaymentMethod.objects.select_for_update().filter` -> ["PaymentMethod", "objects", "select_for_update", ...]."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Call):
            node = node.func
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Name):
            return [node.id, *reversed(names)]
        else:
            return list(reversed(names))


def _names_a_field(call: ast.Call) -> bool:
    strings = {n.value for n in ast.walk(call) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    keywords = {keyword.arg for keyword in call.keywords}
    return bool((strings | keywords) & OWN_FIELDS)


def _findings(tree: ast.AST) -> list[tuple[int, str]]:
    """One finding a line, the outermost call's (ast.walk goes breadth first)."""
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            chain = _chain(node)
            verb = chain[-1] if chain else ""
            if chain[:1] == ["PaymentMethod"] and (verb == "PaymentMethod" or WRITES & set(chain)):
                found.setdefault(node.lineno, ".".join(chain))
            elif verb in WRITES and RELATED & set(chain[:-1]):
                found.setdefault(node.lineno, ".".join(chain))
            elif verb in WRITES and _names_a_field(node):
                found.setdefault(node.lineno, f"{verb} of a PaymentMethod column")
            elif verb == "save" and len(chain) == 2 and "method" in chain[0]:
                found.setdefault(node.lineno, ".".join(chain))
        elif isinstance(node, ast.Assign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for leaf in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(leaf, ast.Attribute) and leaf.attr in OWN_FIELDS:
                        found.setdefault(node.lineno, f"sets .{leaf.attr}")
    return sorted(found.items())


def method_writes(root: Path) -> list[str]:
    return product_findings(root, _findings, home=("payments",), also_skip={"bench"})  # bench: its own sample rows


def test_no_code_outside_payments_writes_or_locks_a_payment_method():
    assert method_writes(ROOT) == []


def test_the_scan_sees_each_way_of_writing_a_method(tmp_path):
    (tmp_path / "writer.py").write_text(
        "methods = PaymentMethod.objects.select_for_update().filter(pk__in=ids)\n"
        "method.blocked_at, method.blocked_reason = at, 'R02'\n"
        "method.save(update_fields=VALIDATION_FIELDS)\n"
        "PaymentMethod.objects.filter(pk=1).update(nickname='x')\n"
        "customer.payment_methods.update(deleted_at=at)\n"
        "saved.save(update_fields=['last_four'])\n"
        "txn.save(update_fields=['name'])\n"
        "PaymentMethod.objects.filter(customer=c).exists()\n"
    )
    assert method_writes(tmp_path) == [
        "writer.py:1: PaymentMethod.objects.select_for_update.filter",
        "writer.py:2: sets .blocked_reason",
        "writer.py:3: method.save",
        "writer.py:4: PaymentMethod.objects.filter.update",
        "writer.py:5: customer.payment_methods.update",
        "writer.py:6: save of a PaymentMethod column",
    ]
