"""Every money move posts, from the state owner: a debit and a credit followed through their moves (one row and in
sets), each leaving the balances docs/ledger.md's templates say, and verify_ledger finding the books sound."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest
from django.core.management import call_command

from ledger.models import JournalEntry, Posting
from ledger.selectors import account_balances
from tests import factories
from transactions.models import Finality, Transaction
from transactions.state import Actor, Event, transaction_create, transition, transition_many

# The moves run at fixed instants of that Monday: the clock is pinned so the rows and the runs agree.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

AT = datetime(2026, 11, 2, 15, 0, tzinfo=UTC)
COMMAND = Actor.command("test")


def _balances(company) -> dict[str, int]:
    return {account: amount for account, amount in account_balances(company_id=company.pk).items() if amount}


def _move(txns, event, **changes):
    ids = [txn.pk for txn in txns]
    return transition_many(Transaction.objects.filter(pk__in=ids), event, actor=COMMAND, at=AT, changes=changes)


def test_a_debit_posts_nothing_until_it_is_sent_then_follows_its_money(company):
    debits = [factories.TransactionFactory(company=company, amount=amount) for amount in (1_000, 2_000)]
    assert not JournalEntry.objects.exists()  # a Pending debit has moved no money
    _move(debits, Event.ORIGINATED)
    assert _balances(company) == {"incoming": 3_000, "clearing": -3_000}
    _move(debits, Event.SETTLED)
    assert _balances(company) == {"pending": 3_000, "bank": -3_000}
    _move(debits[:1], Event.FUNDS_AVAILABLE, finality=Finality.AVAILABLE)
    assert _balances(company) == {"pending": 2_000, "available": 1_000, "bank": -3_000}
    # Late returns take the money back from wherever it is.
    _move(debits, Event.RETURNED)
    assert _balances(company) == {}
    types = list(
        JournalEntry.objects.filter(transaction_uuid=debits[0].uuid).order_by("id").values_list("type", flat=True)
    )
    assert types == ["charge", "settlement", "funds_available", "return"]


def test_a_return_before_settlement_unwinds_the_origination(company):
    debit = factories.TransactionFactory(company=company, amount=700)
    transition(debit, Event.ORIGINATED, actor=COMMAND, at=AT)
    transition(debit, Event.RETURNED, actor=COMMAND, at=AT)
    assert _balances(company) == {}
    assert Posting.objects.filter(entry__transaction_uuid=debit.uuid).count() == 4


def test_a_credit_takes_its_amount_from_available_when_born_and_gives_it_back_when_voided(company):
    credit = factories.TransactionFactory.build(company=company, type="Credit", amount=400, created_at=AT)
    transaction_create(credit, status="Pending", actor=COMMAND)
    assert _balances(company) == {"available": -400, "outgoing": 400}
    transition(credit, Event.VOIDED, actor=COMMAND, at=AT)
    assert _balances(company) == {}


def test_a_credit_settled_leaves_the_bank(company):
    credit = factories.TransactionFactory.build(company=company, type="Credit", amount=400, created_at=AT)
    transaction_create(credit, status="Pending", actor=COMMAND)
    _move([credit], Event.ORIGINATED)
    _move([credit], Event.SETTLED)
    assert _balances(company) == {"available": -400, "bank": 400}


def test_verify_ledger_finds_the_books_of_the_moves_sound(company):
    debit = factories.TransactionFactory(company=company, amount=900)
    for event in (Event.ORIGINATED, Event.SETTLED):
        transition(debit, event, actor=COMMAND, at=AT)
    out = io.StringIO()
    call_command("verify_ledger", stdout=out)
    report = json.loads(out.getvalue())
    assert (report["entries"], report["postings"], report["imbalances"], report["mismatches"]) == (2, 6, 0, [])
