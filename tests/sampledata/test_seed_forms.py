"""The sample data has two forms (sampledata.seeding): row by row (SQLite, and here PostgreSQL made to take it) and
in sets (sampledata.seeding_sql, PostgreSQL). Drawn from the same tables of weights, they write the same kinds of
rows: the same statuses and methods, and for each status no link that one form always writes and the other never.
The draws depend on the company's id, so a link present "sometimes" in one form may, by chance, be always or never
present in the other's 600 rows; "always" against "never" is the fault this test catches."""

from __future__ import annotations

import pytest
from django.db.models import Exists, OuterRef

from sampledata import seeding
from sampledata.seeding import seed_transactions
from transactions.models import Transaction, TransactionHold, TransactionReturn

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def _profile(company) -> dict:
    """The methods, and per status whether its rows have a return, a hold, a batch and a settlement (always, never,
    sometimes)."""
    rows = Transaction.objects.filter(company=company).annotate(
        has_return=Exists(TransactionReturn.objects.filter(transaction=OuterRef("pk"))),
        has_hold=Exists(TransactionHold.objects.filter(transaction=OuterRef("pk"))),
    )
    profile: dict = {}
    for status, method, has_return, has_hold, batch, settlement in rows.values_list(
        "status", "method", "has_return", "has_hold", "batch_id", "settlement_id"
    ):
        profile.setdefault("methods", set()).add(method)
        facts = profile.setdefault(status, {"return": set(), "hold": set(), "batch": set()})
        facts["return"].add(has_return)
        facts["hold"].add(has_hold)
        facts["batch"].add(batch is not None)
        facts.setdefault("settlement", set()).add(settlement is not None)
    return profile


def test_row_by_row_and_in_sets_write_the_same_kinds_of_rows(company, other_company, monkeypatch):
    seed_transactions(company=company, count=600, vacuum=False)
    row_by_row = seeding._Writer.__init__

    def without_copy(self, alias):
        row_by_row(self, alias)
        self.copy = False  # the SQLite path: bulk_create, row by row

    monkeypatch.setattr(seeding._Writer, "__init__", without_copy)
    seed_transactions(company=other_company, count=600, vacuum=False)

    in_sets, one_by_one = _profile(company), _profile(other_company)
    assert in_sets.keys() == one_by_one.keys()
    assert in_sets["methods"] == one_by_one["methods"]
    contradictions = [
        (status, link, sorted(facts[link]), sorted(one_by_one[status][link]))
        for status, facts in in_sets.items()
        if status != "methods"
        for link in facts
        if not facts[link] & one_by_one[status][link]
    ]
    assert contradictions == []
