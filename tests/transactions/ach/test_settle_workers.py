"""`settle --workers N` on PostgreSQL: companies settle on N connections at once, with the totals, statuses and
events they get one after another."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import MONDAY, MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run
from transactions.ach import settlement as settlement_module
from transactions.models import Settlement, Status, Transaction

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _companies_with_entries(count: int) -> dict[int, int]:
    """`count` companies, each with a debit and a credit of its own amounts: company id -> expected net."""
    nets = {}
    for n in range(count):
        company = factories.CompanyFactory()
        bank_txn(company, amount=1000 + n)
        bank_txn(company, type="Credit", amount=10 + n)
        nets[company.pk] = 990
    return nets


def test_companies_settle_on_two_workers_with_their_own_totals_and_events():
    nets = _companies_with_entries(5)
    run("originate", "--at", MONDAY_MORNING)

    summary = run("settle", "--at", MONDAY_SETTLED, "--workers", "2")

    assert (summary["settlements"], summary["transactions"]) == (5, 10)
    assert not Transaction.objects.exclude(status=Status.SETTLED).exists()
    settled = {row.company_id: row for row in Settlement.objects.all()}
    assert {pk: (row.transaction_count, row.net_amount) for pk, row in settled.items()} == {
        pk: (2, net) for pk, net in nets.items()
    }
    assert all(row.settlement_date == MONDAY for row in settled.values())
    for txn in Transaction.objects.all():
        assert txn.settlement_id == settled[txn.company_id].pk
    events = Event.objects.filter(type="transaction.settled")
    assert sorted(events.values_list("object_uuid", flat=True)) == sorted(
        Transaction.objects.values_list("uuid", flat=True)
    )
    assert run("settle", "--at", MONDAY_SETTLED, "--workers", "2")["transactions"] == 0


def test_a_company_waiting_on_a_lock_does_not_hold_up_the_next_company():
    """The first company's settlement row is locked by another session: with two workers the second company
    settles meanwhile (one after another, it would wait its turn behind the lock)."""
    first, second = factories.CompanyFactory(), factories.CompanyFactory()
    bank_txn(first, amount=100)
    waiting = bank_txn(second, amount=200)
    run("originate", "--at", MONDAY_MORNING)
    Settlement.objects.create(company=first, kind=Settlement.Kind.REGULAR, settlement_date=MONDAY)
    locked, release = threading.Event(), threading.Event()

    def hold_settlement_row():
        with transaction.atomic():
            list(Settlement.objects.select_for_update().filter(company=first))
            locked.set()
            release.wait(30)
        connection.close()

    holder = threading.Thread(target=hold_settlement_row)
    holder.start()
    locked.wait(10)
    outcome = {}

    def settle():
        try:
            outcome.update(run("settle", "--at", MONDAY_SETTLED, "--workers", "2"))
        finally:
            connection.close()

    settler = threading.Thread(target=settle)
    settler.start()
    try:
        deadline = time.monotonic() + 20
        while Transaction.objects.get(pk=waiting.pk).status != Status.SETTLED and time.monotonic() < deadline:
            time.sleep(0.05)
        assert Transaction.objects.get(pk=waiting.pk).status == Status.SETTLED
        assert settler.is_alive()  # the first company still waits on the lock
    finally:
        release.set()
        holder.join()
        settler.join(30)
    assert outcome["transactions"] == 2
    assert not Transaction.objects.exclude(status=Status.SETTLED).exists()


def test_a_failing_company_raises_and_a_rerun_settles_what_is_left(monkeypatch):
    nets = _companies_with_entries(4)
    run("originate", "--at", MONDAY_MORNING)
    failing = sorted(nets)[1]
    settle_group = settlement_module._settle_group

    def broken_for_one_company(**kwargs):
        if kwargs["company_id"] == failing:
            raise RuntimeError("the bank's settlement feed is down")
        return settle_group(**kwargs)

    monkeypatch.setattr(settlement_module, "_settle_group", broken_for_one_company)
    with pytest.raises(RuntimeError, match="settlement feed"):
        run("settle", "--at", MONDAY_SETTLED, "--workers", "2")
    assert set(Transaction.objects.filter(company_id=failing).values_list("status", flat=True)) == {Status.PROCESSING}
    for row in Settlement.objects.all():  # what settled is whole: each settlement's count is its settled rows
        assert row.transaction_count == Transaction.objects.filter(settlement=row).count()

    monkeypatch.setattr(settlement_module, "_settle_group", settle_group)
    run("settle", "--at", MONDAY_SETTLED, "--workers", "2")
    assert not Transaction.objects.exclude(status=Status.SETTLED).exists()
    assert {row.company_id: (row.transaction_count, row.net_amount) for row in Settlement.objects.all()} == {
        pk: (2, net) for pk, net in nets.items()
    }


def test_workers_below_one_are_refused():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--workers"):
        run("settle", "--at", MONDAY_SETTLED, "--workers", "0")
