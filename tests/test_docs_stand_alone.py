"""F9: the repository stands alone. README and docs/ explain the API without any file outside the repository,
their tables render, the error table and the lifecycle diagram follow the code, every OpenAPI operation has a
summary and a description, and ReDoc loads nothing from outside."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from transactions.state import MOVES
from vault.error_codes import ErrorCode

ROOT = Path(settings.BASE_DIR)
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# What a clone does not have: the sibling shared/ folder and the project's internal contract files.
OUTSIDE = re.compile(r"(?<!\.)\.\./|\bshared/|/work/|\bSPEC(?:\.md)?\b|\bCONTRACT(?:\.md)?\b")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=[path.name for path in DOCS])
def test_no_reference_outside_the_repository(doc):
    for number, line in enumerate(doc.read_text().splitlines(), start=1):
        assert not OUTSIDE.search(line), f"{doc.name}:{number} points outside the repository: {line.strip()}"
    for target in LINK.findall(doc.read_text()):
        if not re.match(r"[a-z]+:", target):
            assert (doc.parent / target).exists(), f"{doc.name} links to {target}, which is not in the repository"


@pytest.mark.parametrize("doc", DOCS, ids=[path.name for path in DOCS])
def test_every_table_has_its_header_row(doc):
    # A paragraph in the middle of a table ends it; the rows after it render as text full of pipes (F15).
    lines = doc.read_text().splitlines()
    in_code = False
    for number, line in enumerate(lines):
        in_code ^= line.startswith("```")
        starts_table = line.startswith("|") and (number == 0 or not lines[number - 1].startswith("|"))
        if starts_table and not in_code:
            separator = lines[number + 1] if number + 1 < len(lines) else ""
            assert re.fullmatch(r"\|( *:?-+:? *\|)+", separator), f"{doc.name}:{number + 1} table without header"


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().splitlines()[:6]
    assert any(line.startswith("make run") for line in head) and any(line.startswith("make test") for line in head)


def test_the_error_table_lists_every_code():
    api = (ROOT / "docs" / "api.md").read_text()
    missing = [code.value for code in ErrorCode if f"| `{code.value}` |" not in api]
    assert not missing, f"docs/api.md, Errors: no row for {missing}"


def test_the_lifecycle_diagram_has_every_move_of_the_state_table():
    api = (ROOT / "docs" / "api.md").read_text()
    diagram = api.split("```mermaid", 1)[1].split("```", 1)[0]
    arrows = set(re.findall(r"^\s*(\S+) --> (\S+?):", diagram, flags=re.M))
    moves = {(move.source or "[*]", move.target) for move in MOVES if move.source != move.target}
    assert moves <= arrows, f"missing from the diagram: {sorted(moves - arrows)}"


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        return Client().get("/api/schema/", {"format": "json"}).json()


def test_every_operation_has_a_summary_and_a_description(schema):
    bare = [
        operation["operationId"]
        for path_item in schema["paths"].values()
        for operation in path_item.values()
        if isinstance(operation, dict) and not (operation.get("summary") and operation.get("description"))
    ]
    assert not bare, f"operations without a summary or description (vault/openapi_operations.py): {bare}"
    assert "Authentication" in schema["info"]["description"]


def test_idempotency_key_is_described_wherever_it_is_taken(schema):
    headers = [
        parameter
        for path_item in schema["paths"].values()
        for operation in path_item.values()
        if isinstance(operation, dict)
        for parameter in operation.get("parameters", [])
        if parameter.get("name", "").lower() == "idempotency-key"
    ]
    assert headers and all("24 hours" in parameter["description"] for parameter in headers)


def test_the_served_schema_cites_no_internal_document(schema):
    import json

    found = sorted(set(re.findall(r"\b(?:SPEC|CONTRACT) ?[\d.]*", json.dumps(schema))))
    assert not found, f"the OpenAPI document cites {found}"


@pytest.mark.django_db
def test_redoc_loads_nothing_from_outside():
    page = Client().get("/api/redoc/").content.decode()
    assert not re.search(r"""(?:src|href)=["']https?://""", page)
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy and "img-src 'self' data:" in policy.group(1) and "default-src 'self'" in policy.group(1)
