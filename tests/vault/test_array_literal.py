"""vault.db.array_literal: the bulk statements pass their per-row values as PostgreSQL arrays in text form. What the
server reads back must be exactly what was sent, whatever the text holds (PostgreSQL only: SQLite takes no arrays)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from uuid import UUID

import pytest
from django.db import connection

from tests import factories
from transactions.models import Transaction
from transactions.return_codes import PolicyAction
from vault.db import array_literal, ids_in

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="arrays are PostgreSQL's"),
]

AWKWARD_TEXTS = [
    "plain",
    "",
    "NULL",
    "null",
    'a "quoted" word',
    'back\\slash and \\" both',
    "{braces}, commas, and spaces ",
    "  leading and trailing  ",
    "O'Brien",
    "naïve café ✓",
    "line\nbreak\ttab",
    None,
]


def _read_back(literal: str, array_type: str) -> list:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT unnest(%s::{array_type}[])", [literal])
        return [row[0] for row in cursor.fetchall()]


def test_any_text_comes_back_as_it_was_sent():
    assert _read_back(array_literal(AWKWARD_TEXTS), "text") == AWKWARD_TEXTS


def test_a_str_enum_is_sent_as_its_value_not_its_name():
    # psycopg sends a str enum's characters; str() of one is "PolicyAction.BLOCK_METHOD".
    assert _read_back(array_literal([PolicyAction.BLOCK_METHOD, "plain"]), "text") == ["block_method", "plain"]


@pytest.mark.parametrize(
    ("values", "array_type"),
    [
        ([1, -2, 9_007_199_254_740_993, None], "bigint"),
        ([True, False, None], "boolean"),
        ([date(2026, 12, 7), None], "date"),
        ([datetime(2026, 12, 7, 15, 0, 1, 123456, tzinfo=UTC), None], "timestamptz"),
        ([Decimal("12.34"), Decimal("-0.01")], "numeric"),
        ([UUID("12345678-1234-5678-1234-567812345678"), None], "uuid"),
    ],
)
def test_each_kind_of_value_comes_back_as_it_was_sent(values, array_type):
    assert _read_back(array_literal(values), array_type) == values


def test_ids_in_finds_exactly_the_rows_named():
    company = factories.CompanyFactory()
    rows = [factories.TransactionFactory(company=company) for _ in range(3)]
    wanted = [rows[0].pk, rows[2].pk, 10**12]
    assert sorted(Transaction.objects.filter(ids_in(wanted)).values_list("pk", flat=True)) == [rows[0].pk, rows[2].pk]
