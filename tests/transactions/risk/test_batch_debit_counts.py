"""A batch keeps the count of its debits of the return rates (`Batch.debit_count`): `originate` writes it and the
rates add it up, so a company's rates over 60 days read its batches, not its entries. Counting each debit's row
cost about 3 us an entry: at a processor's volume, minutes of PostgreSQL for each return file and for each look at
the admin's company list."""

from __future__ import annotations

from datetime import date

import pytest

from accounts.models import Company
from tests.entry_reads import entry_rows_read
from tests.transactions.ach.conftest import MONDAY, MONDAY_MORNING, bank_txn, run
from tests.transactions.risk.test_return_rates import URL, returned
from transactions.models import AccountValidation, Batch, Transaction
from transactions.risk.return_rates import current_rate_annotations

pytestmark = pytest.mark.django_db

THE_DAY_AFTER = "2026-12-08"


def _validation(company, kind: str, account_hash: str) -> AccountValidation:
    return AccountValidation.objects.create(
        company=company, kind=kind, effective_date=MONDAY, account_hash=account_hash
    )


def _a_day_of_every_kind(company, other_company) -> Transaction:
    """Debits, a credit, an RCC debit, a prenote and a micro-deposit pair, and another company's debit, originated
    on MONDAY; returns the first debit."""
    first = bank_txn(company, amount=1500)
    bank_txn(company, amount=20)
    bank_txn(company, type="Credit", amount=700)
    bank_txn(company, method="RCC", standard_entry_class_code="", amount=1234)
    bank_txn(company, amount=0, account_validation=_validation(company, "prenote", "prenoted"))
    micro = _validation(company, "microdeposits", "micro")
    bank_txn(company, amount=7, type="Credit", account_validation=micro)
    bank_txn(company, amount=7, account_validation=micro)
    bank_txn(other_company, amount=5000, standard_entry_class_code="PPD")
    run("originate", "--at", MONDAY_MORNING)
    return first


def test_originate_counts_each_batch_s_debits_and_the_rates_add_them_up(api_client, company, other_company):
    first = _a_day_of_every_kind(company, other_company)

    batches = Batch.objects.values_list("company_id", "standard_entry_class_code", "entry_count", "debit_count")
    # The WEB batch: two debits and the micro-entry debit count; the credits and the prenote (no money) do not.
    assert sorted(batches) == sorted(
        [(company.pk, "WEB", 6, 3), (company.pk, "TEL", 1, 1), (other_company.pk, "PPD", 1, 1)]
    )

    returned(first, "R10", "2026-12-08T15:00:00")
    for method in ("period", "files"):
        response = api_client.get(URL, {"asOf": THE_DAY_AFTER, "method": method})
        assert response.status_code == 200, response.content
        data = response.json()["data"]
        assert data["debits"] == 4, method
        assert data["overall"]["returns"] == 1
        # By file (method 2) a SEC code counts only in the files of its own returns: the TEL debit has none.
        expected = {"WEB": 3, "TEL": 1} if method == "period" else {"WEB": 3}
        assert {sec: scope["debits"] for sec, scope in data["bySecCode"].items()} == expected
    listed = Company.objects.annotate(**current_rate_annotations(today=date.fromisoformat(THE_DAY_AFTER)))
    rates = {row.pk: row.overall_rate for row in listed}
    assert rates[company.pk] == pytest.approx(1 / 4)
    assert rates[other_company.pk] == 0


@pytest.mark.postgres
def test_the_rates_read_the_returned_entries_alone(api_client, company, other_company):
    """The rates by both methods and the admin's company list read no entry but the returned ones (an index fetch
    each): what they read does not grow with the debits of 60 days."""
    debits = [bank_txn(company, amount=100 + n) for n in range(40)]
    run("originate", "--at", MONDAY_MORNING)
    returned(debits[0], "R01", "2026-12-08T15:00:00")
    before = entry_rows_read()

    for method in ("period", "files"):
        response = api_client.get(URL, {"asOf": THE_DAY_AFTER, "method": method})
        assert response.json()["data"]["debits"] == 40
    listed = Company.objects.filter(pk=company.pk).annotate(**current_rate_annotations(today=date(2026, 12, 8)))
    assert listed.get().overall_rate == pytest.approx(1 / 40)

    # Each of the four counts of returns (period, files, and the list's two) may fetch the returned entry.
    assert entry_rows_read() - before <= 4
