"""`audit_return_matches` re-checks the returns and notices applied before matching changed (CONTRACT 12
"Matching", issue 45) and lists those the new rule would not have applied as they were; it changes nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.management.base import CommandError

from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, run, saved_method_txn
from transactions.ach.return_files import ReturnFileSource
from transactions.ach.returns import returns_import
from transactions.models import ChangeNotice, IngestionFile, Transaction, TransactionReturn
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

TUESDAY_MORNING = "2026-12-08T15:00:00Z"
FILE_AT = datetime(2026, 12, 9, 13, tzinfo=UTC)


def _sent(company, at: str, account: str = "111122223333") -> Transaction:
    customer = factories.CustomerFactory(company=company, first_name="Pat", last_name="Payer")
    method = factories.PaymentMethodFactory(customer=customer, account_number=account)
    txn = saved_method_txn(method, amount=2500)
    run("originate", "--at", at)
    txn.refresh_from_db()
    return txn


def _imported(entries, filename: str) -> dict:
    text = return_file_for(entries, at=FILE_AT)
    return returns_import(source=ReturnFileSource.of(text.encode()), filename=filename, at=FILE_AT)


def _rows() -> tuple[int, int]:
    return TransactionReturn.objects.count(), ChangeNotice.objects.count()


def test_a_return_whose_trace_number_another_live_entry_shares_is_listed_with_the_other_entry(company, other_company):
    older = _sent(company, MONDAY_MORNING)
    newer = _sent(other_company, TUESDAY_MORNING, account="444455556666")
    Transaction.objects.filter(pk=newer.pk).update(trace_number=older.trace_number)
    newer.refresh_from_db()
    assert _imported([(newer, "R01", {})], "bank-returns.ach")["returns"] == 1  # as the old matcher chose it
    before = _rows()

    audit = run("audit_return_matches")

    assert audit["checked"] == {"returns": 1, "notices": 0}
    [listed] = audit["wouldHaveGoneElsewhere"]
    assert listed["kind"] == "return" and listed["code"] == "R01"
    assert listed["appliedTo"]["transactionUuid"] == str(newer.uuid)
    assert listed["appliedTo"]["companyUuid"] == str(other_company.uuid)
    assert listed["changed"] == {"status": "Returned", "returnCode": "R01"}
    assert [row["transactionUuid"] for row in listed["candidates"]] == [str(older.uuid)]
    assert listed["candidates"][0]["companyUuid"] == str(company.uuid)
    assert _rows() == before  # nothing changed


def test_a_sandbox_simulations_file_applied_to_a_live_entry_is_listed(company):
    """Security review C1, as it was written before 2026-12-02: the simulation's file went through the matcher."""
    live = _sent(company, MONDAY_MORNING)
    assert _imported([(live, "C01", {"accountNumber": "999900001111"})], "sandbox-notice-1.ach")["notices"] == 1

    [listed] = run("audit_return_matches")["wouldHaveGoneElsewhere"]

    assert listed["why"] == "a sandbox simulation's file was applied to a live entry"
    assert listed["changed"]["changeCode"] == "C01"
    assert listed["changed"]["newValue"] == {"accountNumber": "****1111"}


def test_a_bank_files_notice_applied_to_a_sandbox_entry_is_listed(company):
    sandbox = factories.CompanyFactory(name="Sandbox Merchant", is_sandbox=True)
    captured = _sent(sandbox, MONDAY_MORNING)
    bank_file = IngestionFile.objects.create(filename="from-bank.ach", sha256="0" * 64, file_format="nacha")
    ChangeNotice.objects.create(  # what the old matcher wrote when a sandbox owned the newest trace date
        company=sandbox,
        transaction=captured,
        change_code="C01",
        change_reason="Incorrect DFI Account Number",
        changed_at=FILE_AT,
        noc_received_at=FILE_AT,
        ingestion_file=bank_file,
    )

    [listed] = run("audit_return_matches")["wouldHaveGoneElsewhere"]

    assert listed["why"] == "the bank's file was applied to a sandbox entry"
    assert listed["appliedTo"]["sandbox"] is True


def test_a_return_applied_to_the_only_entry_of_its_trace_number_is_not_listed(company):
    entry = _sent(company, MONDAY_MORNING)
    _imported([(entry, "R01", {})], "bank-returns.ach")

    audit = run("audit_return_matches")

    assert audit == {"checked": {"returns": 1, "notices": 0}, "wouldHaveGoneElsewhere": []}


def test_since_leaves_out_what_was_received_before_it(company):
    live = _sent(company, MONDAY_MORNING)
    _imported([(live, "C01", {"accountNumber": "999900001111"})], "sandbox-notice-1.ach")

    audit = run("audit_return_matches", "--since", "2026-12-10")

    assert audit == {"checked": {"returns": 0, "notices": 0}, "wouldHaveGoneElsewhere": []}


def test_a_since_that_is_not_a_date_is_refused_naming_it(db):
    with pytest.raises(CommandError, match="--since must be a date"):
        run("audit_return_matches", "--since", "yesterday")
