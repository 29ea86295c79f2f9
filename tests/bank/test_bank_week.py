"""One short day of bench/bank_week.py in CI: charges of several merchants, originate, transmit_files, the
simulator's acknowledgement and returns, fetch_bank_files and settle, then the reconciliation: what we sent and
settled against what the bank received, acknowledged and returned, to the cent, nothing sent twice."""

from __future__ import annotations

import pytest

from bench.bank_week import FIRST_DAY, banking_days, reconcile, report, statement_problems, week

pytestmark = pytest.mark.django_db


def test_a_short_bank_day_reconciles_to_the_cent(bank, settings):
    bank.statement, settings.BANK_SETTLEMENT_ACCOUNT = "bai2", bank.settlement_account
    days = banking_days(FIRST_DAY, 1)
    records = week(days=days, entries=40, companies=3)
    bank.statement = "none"
    assert statement_problems(records) == []
    assert records[0].outputs["reconcile"]["matched"] == records[0].outputs["reconcile"]["lines"] > 0
    (row,) = reconcile(bank)
    assert row.problems == []
    assert row.received_times == 1 and row.status == "acknowledged"
    assert row.returned[0] == 1 and row.noticed == 1  # entries 0 and 1 went to the magic accounts
    assert row.pending == 0
    table = report(records, [row], [])
    assert "| yes |" in table and row.name in table
