"""`verify_ledger`: quiet on sound books, exit 1 naming what is wrong on unsound ones (a test that can fail)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import transaction

from ledger.models import Account, BalanceCheckpoint, Posting
from tests.ledger.conftest import T0, post

# The postings are dated at fixed instants and read as of others: the clock is pinned so "now" falls after them.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]


def _verify() -> tuple[dict, bool]:
    out = io.StringIO()
    try:
        call_command("verify_ledger", "--at", "2026-11-03T00:00:00Z", stdout=out)
    except CommandError:
        return json.loads(out.getvalue()), False
    return json.loads(out.getvalue()), True


def test_sound_books_pass(books):
    call_command("checkpoint_ledger", "--at", "2026-11-03T00:00:00Z", stdout=io.StringIO())
    report, ok = _verify()
    assert ok, report
    assert report["imbalances"] == 0 and report["mismatches"] == []
    assert report["entries"] == 3 and report["postings"] == 6


class _Planted(Exception):
    pass


def test_a_planted_imbalance_fails_the_check(company, books):
    """Planted past the write path, in a savepoint rolled back before anything commits (PostgreSQL's deferred
    trigger would refuse it at COMMIT): what a bug or a hand-made row would leave."""
    entry = post(company, [(Account.INCOMING, 500), (Account.CLEARING, -500)])
    with pytest.raises(_Planted), transaction.atomic():
        Posting.objects.create(entry=entry, company=company, account=Account.FEES, amount=25, created_at=T0)
        report, ok = _verify()
        raise _Planted
    assert not ok
    assert report["imbalances"] == 1
    assert {"check": "balanced", "entry": entry.pk, "sum": 25, "postings": 3} in report["mismatches"]


def test_a_wrong_checkpoint_fails_the_check(company, books):
    call_command("checkpoint_ledger", "--at", "2026-11-03T00:00:00Z", stdout=io.StringIO())
    checkpoint = BalanceCheckpoint.objects.get(company=company, account=Account.PENDING)
    BalanceCheckpoint.objects.filter(pk=checkpoint.pk).update(balance=checkpoint.balance + 1)
    report, ok = _verify()
    assert not ok
    checks = {m["check"] for m in report["mismatches"]}
    assert checks == {"checkpoint", "balance"}
