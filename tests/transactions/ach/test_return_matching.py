"""A return or notice of change applies only to the one entry that agrees with everything the bank sent back
(CONTRACT 12 "Matching", security review 2026-12-02 C1/C2): trace number, the return batch's Company
Identification, the original RDFI, the account number as sent, a return's amount and direction, a trace date on
or before the file's date inside the window. None or several: parked under `exceptions` with the reason, nothing
applied. Trace numbers are forced to collide here (as they did when the sequence restarted every day)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

import pytest

from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, return_csv, run, saved_method_txn
from transactions.models import ParkedReturnItem, Transaction
from transactions.sandbox.bank_files import return_file_of, return_spec

pytestmark = pytest.mark.django_db

TUESDAY_MORNING = "2026-12-08T15:00:00Z"
FILE_AT = datetime(2026, 12, 9, 13, tzinfo=UTC)
IMPORT_AT = "2026-12-09T14:00:00Z"


def _method(company, account_number: str):
    customer = factories.CustomerFactory(company=company, first_name="Pat", last_name="Payer")
    return factories.PaymentMethodFactory(customer=customer, account_number=account_number, routing_number="021000021")


def _sent(method, at: str, **fields) -> Transaction:
    txn = saved_method_txn(method, **fields)
    run("originate", "--at", at)
    txn.refresh_from_db()
    return txn


def _same_trace(older: Transaction, newer: Transaction) -> Transaction:
    """The newer entry given the older one's trace number (another day: the database allows it)."""
    Transaction.objects.filter(pk=newer.pk).update(trace_number=older.trace_number)
    newer.refresh_from_db()
    assert newer.trace_date != older.trace_date
    return newer


def _import(tmp_path, specs, *, at=FILE_AT, import_at=IMPORT_AT) -> dict:
    path = tmp_path / f"returns-{len(list(tmp_path.iterdir()))}.ach"
    path.write_text(return_file_of(specs, at=at))
    return run("import_returns", str(path), "--at", import_at)


@pytest.fixture
def collided(company, other_company):
    """Company A's debit sent Monday, company B's sent Tuesday with the same trace number, amount and direction."""
    method_a, method_b = _method(company, "111122223333"), _method(other_company, "444455556666")
    entry_a = _sent(method_a, MONDAY_MORNING, amount=2500)
    entry_b = _same_trace(entry_a, _sent(method_b, TUESDAY_MORNING, amount=2500))
    return entry_a, entry_b


def test_a_notice_for_the_older_entry_corrects_its_own_method_not_the_newer_entry_of_another_company(
    collided, tmp_path
):
    entry_a, entry_b = collided

    summary = _import(tmp_path, [return_spec(entry_a, "C01", {"accountNumber": "888877776666"})])

    assert (summary["notices"], summary["exceptions"]) == (1, [])
    entry_a.payment_method.refresh_from_db()
    entry_b.payment_method.refresh_from_db()
    assert entry_a.payment_method.account_number == "888877776666"
    assert entry_b.payment_method.account_number == "444455556666"
    assert not hasattr(Transaction.objects.get(pk=entry_b.pk), "change_notice")


def test_a_return_for_the_older_entry_returns_it_and_leaves_the_other_companys_debit_alone(collided, tmp_path):
    entry_a, entry_b = collided

    summary = _import(tmp_path, [return_spec(entry_a, "R01", {})])

    assert (summary["returns"], summary["unmatched"], summary["exceptions"]) == (1, [], [])
    statuses = dict(Transaction.objects.filter(pk__in=[entry_a.pk, entry_b.pk]).values_list("pk", "status"))
    assert statuses == {entry_a.pk: "Returned", entry_b.pk: "Processing"}


@pytest.mark.parametrize(
    ("changed", "differ"),
    [
        ({"company_identification": "9ZZZZZZZZZ"}, "companyIdentification"),
        ({"account_number": "999999999999"}, "accountNumber"),
        ({"routing_number": "011000015"}, "receivingDfi"),
        ({"amount": 2501}, "amount"),
        ({"original_transaction_code": "22"}, "direction"),
    ],
)
def test_an_item_that_disagrees_with_the_only_entry_of_its_trace_number_is_parked(company, tmp_path, changed, differ):
    entry = _sent(_method(company, "111122223333"), MONDAY_MORNING, amount=2500)
    spec = dataclasses.replace(return_spec(entry, "R01", {}), **changed)

    summary = _import(tmp_path, [spec])

    reason = f"no entry with this trace number agrees with it ({differ} differ)"
    assert summary["returns"] == 0
    assert summary["exceptions"] == [{"trace": entry.trace_number, "code": "R01", "reason": reason}]
    assert summary["unmatched"] == [entry.trace_number]
    entry.refresh_from_db()
    assert entry.status == "Processing"
    parked = ParkedReturnItem.objects.get()
    assert (parked.trace_number, parked.reason, parked.transaction_uuid) == (entry.trace_number, reason, None)


def test_a_notice_with_another_account_number_corrects_nothing(company, tmp_path):
    method = _method(company, "111122223333")
    entry = _sent(method, MONDAY_MORNING)
    spec = dataclasses.replace(return_spec(entry, "C01", {"accountNumber": "888877776666"}), account_number="1")

    summary = _import(tmp_path, [spec])

    assert summary["notices"] == 0
    assert [item["reason"] for item in summary["exceptions"]] == [
        "no entry with this trace number agrees with it (accountNumber differ)"
    ]
    method.refresh_from_db()
    assert method.account_number == "111122223333"


def test_two_entries_that_agree_with_everything_are_parked_and_neither_is_returned(company, tmp_path):
    method = _method(company, "111122223333")
    monday = _sent(method, MONDAY_MORNING, amount=2500)
    tuesday = _same_trace(monday, _sent(method, TUESDAY_MORNING, amount=2500))

    summary = _import(tmp_path, [return_spec(monday, "R01", {})])

    assert summary["returns"] == 0
    assert summary["exceptions"] == [
        {"trace": monday.trace_number, "code": "R01", "reason": "2 entries agree with it: nothing applied"}
    ]
    assert set(Transaction.objects.filter(pk__in=[monday.pk, tuesday.pk]).values_list("status", flat=True)) == {
        "Processing"
    }


def test_an_entry_traced_after_the_files_date_is_not_a_candidate(company, tmp_path):
    method = _method(company, "111122223333")
    monday = _sent(method, MONDAY_MORNING, amount=2500)
    tuesday = _same_trace(monday, _sent(method, TUESDAY_MORNING, amount=2500))

    # Written Monday evening: only Monday's entry was sent by then.
    summary = _import(tmp_path, [return_spec(monday, "R01", {})], at=datetime(2026, 12, 7, 23, tzinfo=UTC))

    assert (summary["returns"], summary["exceptions"]) == (1, [])
    statuses = dict(Transaction.objects.filter(pk__in=[monday.pk, tuesday.pk]).values_list("pk", "status"))
    assert statuses == {monday.pk: "Returned", tuesday.pk: "Processing"}


def test_a_sandbox_entry_is_never_a_candidate_for_a_bank_file(company, tmp_path):
    """C2: a sandbox that advanced its clock owned the newest trace dates and captured live NOCs."""
    sandbox = factories.CompanyFactory(name="Sandbox Merchant", is_sandbox=True)
    live_method, sandbox_method = _method(company, "111122223333"), _method(sandbox, "555566667777")
    live = _sent(live_method, MONDAY_MORNING)
    captured = _same_trace(live, _sent(sandbox_method, TUESDAY_MORNING))
    # Even a file that names the sandbox's company and account finds no entry.
    summary = _import(tmp_path, [return_spec(captured, "C01", {"accountNumber": "888877776666"})])
    assert (summary["notices"], summary["unmatched"]) == (0, [captured.trace_number])

    summary = _import(tmp_path, [return_spec(live, "C01", {"accountNumber": "888877776666"})])

    assert summary["notices"] == 1
    live_method.refresh_from_db()
    sandbox_method.refresh_from_db()
    assert (live_method.account_number, sandbox_method.account_number) == ("888877776666", "555566667777")


def test_a_csv_item_whose_trace_number_two_entries_share_is_parked(company, other_company, tmp_path):
    """A CSV row carries only the trace number and the code: it applies when one entry has that number."""
    entry_a = _sent(_method(company, "111122223333"), MONDAY_MORNING)
    entry_b = _same_trace(entry_a, _sent(_method(other_company, "444455556666"), TUESDAY_MORNING))
    path = tmp_path / "returns.csv"
    path.write_text(return_csv([f"return,{entry_a.trace_number},R01,,,"]))

    summary = run("import_returns", str(path), "--at", IMPORT_AT)

    assert summary["returns"] == 0
    assert [item["reason"] for item in summary["exceptions"]] == ["2 entries agree with it: nothing applied"]
    assert set(Transaction.objects.filter(pk__in=[entry_a.pk, entry_b.pk]).values_list("status", flat=True)) == {
        "Processing"
    }
