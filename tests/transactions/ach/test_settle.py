from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.management.base import CommandError

from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, NO_VALIDATIONS, bank_txn, run
from transactions.models import Settlement, Transaction

pytestmark = pytest.mark.django_db


def test_processing_transactions_settle_per_company_and_day(company, other_company):
    debit = bank_txn(company, amount=1000)
    credit = bank_txn(company, type="Credit", amount=300)
    other = bank_txn(other_company, amount=50)
    run("originate", "--at", MONDAY_MORNING)

    too_early = run("settle", "--at", "2026-12-07T21:59:59Z")
    assert too_early == {
        "settlements": 0,
        "transactions": 0,
        "lateReturnSettlements": 0,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
        **NO_VALIDATIONS,
    }

    summary = run("settle", "--at", MONDAY_SETTLED)

    assert summary == {
        "settlements": 2,
        "transactions": 3,
        "lateReturnSettlements": 0,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
        **NO_VALIDATIONS,
    }
    for txn in (debit, credit, other):
        txn.refresh_from_db()
        assert txn.status == "Settled"
    assert debit.settlement_id == credit.settlement_id != other.settlement_id
    settlement = debit.settlement
    assert settlement.company == company and settlement.kind == "regular"
    assert settlement.settlement_date == datetime(2026, 12, 7).date()
    assert settlement.processed_at == datetime(2026, 12, 7, 22, 0, 1, tzinfo=UTC)
    assert (settlement.transaction_count, settlement.net_amount) == (2, 700)


def test_settle_rerun_settles_nothing_again(company):
    bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    assert run("settle", "--at", MONDAY_SETTLED) == {
        "settlements": 0,
        "transactions": 0,
        "lateReturnSettlements": 0,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
    }
    assert Settlement.objects.get().transaction_count == 1


def test_second_run_joins_the_days_existing_settlement(company):
    first = bank_txn(company, amount=100)
    run("originate", "--at", MONDAY_MORNING)
    Transaction.objects.filter(pk=first.pk).update(expected_to_settle_at=datetime(2026, 12, 7, 18, tzinfo=UTC))
    assert run("settle", "--at", "2026-12-07T18:00:00Z")["transactions"] == 1
    second = bank_txn(company, amount=40)
    run("originate", "--at", "2026-12-07T19:00:00Z")
    assert run("settle", "--at", MONDAY_SETTLED) == {
        "settlements": 1,
        "transactions": 1,
        "lateReturnSettlements": 0,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
    }
    second.refresh_from_db()
    first.refresh_from_db()
    assert second.settlement_id == first.settlement_id
    settlement = Settlement.objects.get()
    assert (settlement.transaction_count, settlement.net_amount) == (2, 140)


def test_authorised_card_charges_are_captured_and_settled(company):
    authorised = bank_txn(
        company,
        method="CRD",
        standard_entry_class_code="",
        authorized_at=datetime(2026, 12, 6, tzinfo=UTC),
        auth_response_code="00",
    )
    not_authorised = bank_txn(company, method="CRD", standard_entry_class_code="")

    summary = run("settle", "--at", MONDAY_SETTLED)

    assert summary == {
        "settlements": 1,
        "transactions": 1,
        "lateReturnSettlements": 0,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
        **NO_VALIDATIONS,
    }
    authorised.refresh_from_db()
    assert authorised.status == "Settled"
    assert authorised.captured_at == datetime(2026, 12, 7, 22, 0, 1, tzinfo=UTC)
    assert authorised.settlement.settlement_date == datetime(2026, 12, 7).date()
    not_authorised.refresh_from_db()
    assert not_authorised.status == "Pending" and not_authorised.captured_at is None


def test_late_returns_are_gathered_into_a_late_return_settlement(company):
    returned = bank_txn(company, status="Returned", late_returned_at=datetime(2026, 12, 8, tzinfo=UTC), amount=800)
    timely = bank_txn(company, status="Returned")
    summary = run("settle", "--at", "2026-12-09T22:00:00Z")
    assert summary == {
        "settlements": 0,
        "transactions": 0,
        "lateReturnSettlements": 1,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
        **NO_VALIDATIONS,
    }
    returned.refresh_from_db()
    late = returned.late_return_settlement
    assert late.kind == "late_return" and late.settlement_date == datetime(2026, 12, 9).date()
    assert (late.transaction_count, late.net_amount) == (1, -800)
    timely.refresh_from_db()
    assert timely.late_return_settlement_id is None
    assert run("settle", "--at", "2026-12-09T23:00:00Z")["lateReturnSettlements"] == 0


def test_bad_at_is_a_command_error(db):
    with pytest.raises(CommandError):
        run("settle", "--at", "not-a-time")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_rows_locked_by_another_worker_are_left_for_the_next_run(company):
    import threading

    from django.db import connection, transaction

    first = bank_txn(company, amount=10)
    second = bank_txn(company, amount=20)
    run("originate", "--at", MONDAY_MORNING)
    locked, release = threading.Event(), threading.Event()

    def hold_lock():
        with transaction.atomic():
            list(Transaction.objects.select_for_update().filter(pk=first.pk))
            locked.set()
            release.wait(10)
        connection.close()

    worker = threading.Thread(target=hold_lock)
    worker.start()
    locked.wait(10)
    try:
        assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 1
    finally:
        release.set()
        worker.join()
    second.refresh_from_db()
    assert second.status == "Settled"
    assert run("settle", "--at", MONDAY_SETTLED) == {
        "settlements": 1,
        "transactions": 1,
        "lateReturnSettlements": 0,
        "unwrittenBatches": [],
        "filesAwaitingBank": [],
        **NO_VALIDATIONS,
    }
    assert Settlement.objects.get().transaction_count == 2
