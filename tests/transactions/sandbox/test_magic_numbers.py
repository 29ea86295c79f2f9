"""Magic account numbers (CONTRACT 13): each family, every code of the code tables, through `settle`."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from payments.models import PaymentMethod
from tests import factories
from tests.transactions.sandbox.conftest import run
from transactions.models import ChangeNotice, Status, Transaction
from transactions.return_codes import CHANGE_CODES, RETURN_CODES
from transactions.sandbox import magic

pytestmark = pytest.mark.django_db

MONDAY = date(2026, 12, 7)
MONDAY_MORNING = "2026-12-07T15:00:00Z"  # 10:00 Eastern
WEDNESDAY_EVENING = "2026-12-09T23:30:00Z"  # 18:30 Eastern: anything sent on Monday has settled
SIMULATED_RETURNS = [code for code in RETURN_CODES if magic.is_simulated_return(code)]


def _entry(company, account_number: str, **overrides) -> Transaction:
    return factories.TransactionFactory(
        company=company,
        account_number=account_number,
        effective_date=MONDAY,
        **overrides,
    )


def _saved_entry(company, account_number: str) -> Transaction:
    method = factories.PaymentMethodFactory(
        customer=factories.CustomerFactory(company=company), account_number=account_number, account_type="Checking"
    )
    return _entry(company, account_number, customer=method.customer, payment_method=method)


def test_the_code_tables_cover_every_return_and_change_code():
    assert len(SIMULATED_RETURNS) == len(RETURN_CODES) - sum("R61" <= code <= "R77" for code in RETURN_CODES)
    assert {magic.outcome_for(f"000555{code[1:]}") for code in SIMULATED_RETURNS} == {
        (magic.Outcome.RETURN, code) for code in SIMULATED_RETURNS
    }
    assert {magic.outcome_for(f"000666{code[1:]}") for code in CHANGE_CODES} == {
        (magic.Outcome.NOTICE, code) for code in CHANGE_CODES
    }
    assert magic.outcome_for("00055561") is None  # a dishonor is not a receiver's return: the entry settles
    assert magic.outcome_for("00055599") is None and magic.outcome_for("987654321") is None


def test_000555_returns_each_entry_with_its_code_when_settle_runs(sandbox_company):
    entries = {code: _entry(sandbox_company, f"000555{code[1:]}") for code in SIMULATED_RETURNS}
    plain = _entry(sandbox_company, "987654321")
    run("originate", "--at", MONDAY_MORNING)

    summary = run("settle", "--at", WEDNESDAY_EVENING)

    assert summary["sandbox"] == {"returns": len(SIMULATED_RETURNS), "notices": 0, "lateReturns": 0}
    assert summary["transactions"] == 1  # only the plain number settles
    for code, txn in entries.items():
        txn.refresh_from_db()
        assert (txn.status, txn.return_code, txn.late_returned_at) == (Status.RETURNED, code, None), code
    plain.refresh_from_db()
    assert plain.status == Status.SETTLED and plain.return_code is None


def test_000666_sends_each_notice_of_change_and_the_entry_still_settles(sandbox_company):
    entries = {code: _saved_entry(sandbox_company, f"000666{code[1:]}") for code in CHANGE_CODES}
    run("originate", "--at", MONDAY_MORNING)

    summary = run("settle", "--at", WEDNESDAY_EVENING)

    assert summary["sandbox"] == {"returns": 0, "notices": len(CHANGE_CODES), "lateReturns": 0}
    assert summary["transactions"] == len(CHANGE_CODES)
    notices = {notice.transaction_id: notice.change_code for notice in ChangeNotice.objects.all()}
    assert notices == {txn.pk: code for code, txn in entries.items()}
    methods = {code: PaymentMethod.objects.get(pk=txn.payment_method_id) for code, txn in entries.items()}
    assert methods["C01"].account_number == magic.CORRECTED_ACCOUNT_NUMBER
    assert methods["C02"].routing_number == magic.CORRECTED_ROUTING_NUMBER
    assert (methods["C03"].routing_number, methods["C03"].last_four) == (magic.CORRECTED_ROUTING_NUMBER, "6789")
    assert methods["C05"].account_type == "Savings"
    assert methods["C09"].account_number == "00066609"  # a code that corrects no field changes nothing


@pytest.mark.parametrize("code", ["R01", "R05", "R10"])
def test_000777_is_returned_late_40_days_after_it_settled(sandbox_company, code):
    txn = _entry(sandbox_company, f"000777{code[1:]}")
    run("originate", "--at", MONDAY_MORNING)
    assert run("settle", "--at", WEDNESDAY_EVENING)["transactions"] == 1
    txn.refresh_from_db()
    settled_at = txn.expected_to_settle_at

    def settle_on(moment):
        return run("settle", "--at", moment.isoformat().replace("+00:00", "Z"))

    assert settle_on(settled_at + timedelta(days=39))["sandbox"]["lateReturns"] == 0
    txn.refresh_from_db()
    assert txn.status == Status.SETTLED

    summary = settle_on(settled_at + timedelta(days=40, hours=1))
    # The late return comes in first, so the same run settles it back: a late-return settlement.
    assert (summary["sandbox"]["lateReturns"], summary["lateReturnSettlements"]) == (1, 1)
    txn.refresh_from_db()
    assert (txn.status, txn.return_code) == (Status.RETURNED, code) and txn.late_returned_at is not None
    assert settle_on(settled_at + timedelta(days=41))["sandbox"]["lateReturns"] == 0


def test_magic_numbers_of_a_live_company_settle_like_any_other(company):
    txn = _entry(company, "00055501")
    run("originate", "--at", MONDAY_MORNING)
    summary = run("settle", "--at", WEDNESDAY_EVENING)
    assert summary["sandbox"] == {"returns": 0, "notices": 0, "lateReturns": 0}
    txn.refresh_from_db()
    assert txn.status == Status.SETTLED and txn.return_code is None
