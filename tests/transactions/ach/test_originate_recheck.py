"""`originate` re-reads each Pending entry's account as it batches it (CONTRACT 12; ACH review d-5, f5:3 and f5:6):
an entry accepted before a notice of change goes to the corrected account, and a debit to an account a return
blocked since is DECLINED, not sent. Read back from the file the way a bank would read it."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from events.models import Event
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run, saved_method_txn
from tests.transactions.risk.test_retry import returned_debit
from transactions.models import Transaction, TransactionEvent
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

# Entries that go out in Tuesday's file settle Wednesday (next day, CONTRACT 12): Monday's file leaves them.
SENT_TUESDAY = date(2026, 12, 9)
RETURN_TIME = "2026-12-08T14:00:00Z"
TUESDAY_MORNING = "2026-12-08T15:00:00Z"


def _monday(*txns):
    run("originate", "--at", MONDAY_MORNING)
    for txn in txns:
        txn.refresh_from_db()
        assert txn.status == "Processing"


def _rdfi_sends(tmp_path, entries):
    path = tmp_path / "from-rdfi.ach"
    path.write_text(return_file_for(entries, at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    return run("import_returns", str(path), "--at", RETURN_TIME)


def _tuesday_entries() -> list[nacha_reader.ReadEntry]:
    summary = run("originate", "--at", TUESDAY_MORNING)
    return [
        entry
        for path in summary["files"]
        for batch in nacha_reader.read(Path(path).read_text()).batches
        for entry in batch.entries
    ]


def _trail(txn) -> list[tuple[str, str, str, str]]:
    return list(
        TransactionEvent.objects.filter(transaction=txn)
        .order_by("id")
        .values_list("event", "from_status", "to_status", "reason")
    )


def test_a_pending_debit_to_an_account_blocked_since_is_declined_not_sent(method, company, tmp_path):
    """f5:3: a future-dated debit accepted before the R03 that blocked its account."""
    sent = saved_method_txn(method, amount=1000)
    later = saved_method_txn(method, amount=8200, effective_date=SENT_TUESDAY)
    other = bank_txn(company, amount=3300, account_number="000555666777", effective_date=SENT_TUESDAY)
    _monday(sent)
    assert _rdfi_sends(tmp_path, [(sent, "R03", {})])["returns"] == 1

    entries = _tuesday_entries()

    assert [(entry.account.strip(), entry.amount) for entry in entries] == [("000555666777", 3300)]
    later.refresh_from_db()
    reason = f"account blocked after return R03 on {sent.uuid}"
    assert (later.status, later.failure_reason, later.batch_id, later.trace_number) == ("DECLINED", reason, None, "")
    assert _trail(later)[-1] == ("declined", "Pending", "DECLINED", reason)
    declined = Event.objects.get(type="transaction.declined", object_uuid=later.uuid)
    assert declined.data["failureReason"] == reason
    other.refresh_from_db()
    assert other.status == "Processing"


def test_a_pending_one_off_debit_to_a_blocked_account_is_declined(company, tmp_path):
    sent = bank_txn(company, amount=1000, account_number="000444333222")
    later = bank_txn(company, amount=2000, account_number="000444333222", effective_date=SENT_TUESDAY)
    _monday(sent)
    _rdfi_sends(tmp_path, [(sent, "R02", {})])

    assert _tuesday_entries() == []

    later.refresh_from_db()
    assert (later.status, later.failure_reason) == ("DECLINED", f"account blocked after return R02 on {sent.uuid}")


def test_a_pending_debit_of_a_method_its_policy_blocked_is_declined(method, tmp_path):
    sent = saved_method_txn(method, amount=1000)
    later = saved_method_txn(method, amount=2000, effective_date=SENT_TUESDAY)
    _monday(sent)
    _rdfi_sends(tmp_path, [(sent, "R51", {})])  # blocks the method by the default policy, not the account

    assert _tuesday_entries() == []

    later.refresh_from_db()
    assert later.status == "DECLINED" and later.failure_reason.startswith("payment method blocked: R51")


def test_a_pending_credit_goes_to_the_account_a_notice_of_change_corrected(method, tmp_path):
    """f5:6: a future-dated credit accepted before the C01 that corrected its saved method."""
    sent = saved_method_txn(method, amount=1000)
    credit = saved_method_txn(
        method, amount=5555, type="Credit", standard_entry_class_code="PPD", effective_date=SENT_TUESDAY
    )
    _monday(sent)
    assert _rdfi_sends(tmp_path, [(sent, "C01", {"accountNumber": "3141592653"})])["notices"] == 1

    (entry,) = _tuesday_entries()

    assert (entry.routing, entry.account.strip(), entry.amount) == ("021000021", "3141592653", 5555)
    credit.refresh_from_db()
    assert (credit.status, credit.account_number, credit.account_last_four) == ("Processing", "3141592653", "2653")
    why = f"account corrected by notice of change C01 on {sent.uuid}"
    assert ("corrected", "Pending", "Pending", why) in _trail(credit)
    updated = Event.objects.get(type="transaction.updated", object_uuid=credit.uuid)
    assert updated.data["paymentDetails"]["accountNumber"] == "****2653"
    assert "3141592653" not in str(updated.data)


def test_a_pending_one_off_entry_goes_to_the_account_a_notice_on_an_earlier_entry_corrected(company, tmp_path):
    sent = bank_txn(company, amount=1000, account_number="000777888999")
    later = bank_txn(company, amount=4400, account_number="000777888999", effective_date=SENT_TUESDAY)
    _monday(sent)
    changed = {"routingNumber": "011000015", "accountNumber": "5550001111", "accountType": "Savings"}
    assert _rdfi_sends(tmp_path, [(sent, "C07", changed)])["notices"] == 1

    (entry,) = _tuesday_entries()

    assert (entry.routing, entry.account.strip(), entry.transaction_code) == ("011000015", "5550001111", "37")
    later.refresh_from_db()
    assert (later.routing_number, later.account_type, later.account_number) == ("011000015", "Savings", "5550001111")


def test_an_entry_already_going_to_the_corrected_account_is_left_alone(method, tmp_path):
    sent = saved_method_txn(method, amount=1000)
    _monday(sent)
    _rdfi_sends(tmp_path, [(sent, "C01", {"accountNumber": "3141592653"})])
    method.refresh_from_db()
    fresh = saved_method_txn(method, amount=2000, effective_date=SENT_TUESDAY)  # charged after the notice

    (entry,) = _tuesday_entries()

    assert entry.account.strip() == "3141592653"
    assert [event for event, *_ in _trail(fresh)] == ["created", "originated"]
    assert not Transaction.objects.filter(status="DECLINED").exists()


@pytest.mark.parametrize(("sent_after_days", "status"), [(0, "Processing"), (1, "DECLINED")])
def test_a_re_presentment_is_sent_only_up_to_day_180_of_the_first_presentment(
    ordinary_banking_day, api_client, method, sent_after_days, status
):
    """ACH review L4 (third round): the retry route checks day 180 the day it makes the re-presentment; one made on
    day 180 after the cut-off would go out on day 181. `originate` checks the day it sends it."""
    today = ordinary_banking_day.date()
    first = returned_debit(method, "R01", effective_date=today - timedelta(days=180))
    response = api_client.post(f"/transactions/{first.uuid}/retry")
    assert response.status_code == 201, response.content  # day 180: the route makes it
    again = Transaction.objects.get(uuid=response.json()["data"]["uuid"])

    sent_on = today + timedelta(days=sent_after_days)
    summary = run("originate", "--at", f"{sent_on.isoformat()}T15:00:00Z")

    again.refresh_from_db()
    assert again.status == status
    if status == "DECLINED":
        reason = f"retry window passed: sent {sent_on}, more than 180 days after the first presentment settled "
        assert again.failure_reason.startswith(reason) and again.batch_id is None
        assert summary["refused"] == [{"uuid": str(again.uuid), "status": "DECLINED", "reason": again.failure_reason}]
        assert Event.objects.filter(type="transaction.declined", object_uuid=again.uuid).exists()
