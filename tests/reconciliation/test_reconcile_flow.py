"""A day at the bank reconciled end to end (CONTRACT 19): originate, transmit_files to the test bank over SFTP, which
writes its acknowledgement, the return file and the statement of our settlement account (BAI2 or camt.053, a line
per file or per batch); fetch_bank_files routes the statement to its import; `reconcile` makes the expected payments
from the file and the return and matches every line to the cent. A line nobody expected becomes an exception after
one banking day (exit 1, /health, /metrics); a statement of another account is set aside."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from bank.models import InboundFile
from reconciliation.models import ExpectedPayment, Match, ReconciliationException, Statement, StatementLine
from tests.bank.conftest import command
from tests.bank.test_transmit import TRANSMIT_AT
from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("monday_early")]

FETCH_AT = "2026-12-07T15:45:00Z"
MONDAY_EVENING = "2026-12-07T23:00:00Z"  # 18:00 ET on the settlement day
TUESDAY = "2026-12-08T12:05:00Z"  # 07:05 ET, the timer's hour
ACCOUNT = "9876543210"


@pytest.fixture
def stating_bank(bank, settings):
    """The test bank writing statements of our settlement account."""
    bank.statement, bank.posting, bank.statement_noise, bank.settlement_account = "bai2", "file", False, ACCOUNT
    bank.rng.seed(0)
    settings.BANK_SETTLEMENT_ACCOUNT = ACCOUNT
    yield bank
    bank.statement, bank.statement_noise = "none", False


def _day_at_the_bank(company) -> str:
    bank_txn(company, amount=1500)
    bank_txn(company, amount=2500, account_number="00055501")  # returned R01
    bank_txn(company, amount=3000, account_number="00066601")  # a notice of change: no money moves
    bank_txn(company, type="Credit", amount=700, standard_entry_class_code="PPD")
    run("originate", "--at", MONDAY_MORNING)
    (name,) = command("transmit_files", "--at", TRANSMIT_AT)[0]["transmitted"]
    return name


@pytest.mark.parametrize(
    ("statement", "posting", "suffix"), [("bai2", "file", ".bai2"), ("camt053", "batch", ".camt053.xml")]
)
def test_a_day_at_the_bank_reconciles_to_the_cent(stating_bank, company, statement, posting, suffix):
    stating_bank.statement, stating_bank.posting = statement, posting
    name = _day_at_the_bank(company)
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert error is None and f"{name}{suffix}" in fetched["files"] and fetched["exceptions"] == []
    assert InboundFile.objects.get(name=f"{name}{suffix}").state == InboundFile.State.APPLIED
    assert Statement.objects.get().format == statement
    reconciled, error = command("reconcile", "--at", TUESDAY)
    assert error is None
    lines = StatementLine.objects.count()
    assert reconciled == {
        "lines": lines,
        "matched": lines,
        "unmatchedLines": 0,
        "unmatchedExpected": 0,
        "exceptions": [],
    }
    expected = sorted(ExpectedPayment.objects.values_list("kind", "direction", "amount"))
    assert expected == [
        ("file_settlement", "credit", 7000),
        ("file_settlement", "debit", 700),
        ("return_item", "debit", 2500),
    ]
    assert not ExpectedPayment.objects.exclude(state="matched").exists()
    rules = set(Match.objects.values_list("rule", flat=True))
    assert rules == ({"reference"} if posting == "file" else {"reference", "reference_split"})
    again, error = command("reconcile", "--at", TUESDAY)
    assert (again["lines"], again["matched"], again["exceptions"], error) == (0, 0, [], None)


def _scraped(client, settings, name: str) -> dict[str, float]:
    settings.METRICS_TOKEN, settings.METRICS_CACHE_SECONDS = "metrics-token-for-the-test", 0
    text = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {settings.METRICS_TOKEN}").content.decode()
    return {
        line.split("{", 1)[1].split("}")[0] if "{" in line else "": float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith(name)
    }


def test_a_line_nobody_expected_becomes_an_exception_after_one_banking_day(stating_bank, company, client, settings):
    stating_bank.statement_noise = True
    _day_at_the_bank(company)
    command("fetch_bank_files", "--at", FETCH_AT)
    strangers = StatementLine.objects.filter(text="ACH OTHER ORIGINATOR").count()
    assert strangers >= 1
    same_day, error = command("reconcile", "--at", MONDAY_EVENING)
    assert error is None and same_day["unmatchedLines"] == strangers and same_day["exceptions"] == []
    next_day, error = command("reconcile", "--at", TUESDAY)
    assert error is not None and "new reconciliation exception" in error
    assert len(next_day["exceptions"]) == strangers
    assert {exception["kind"] for exception in next_day["exceptions"]} == {"unmatched_line"}
    # The fee and the interest are the bank's own lines; the split settlement was added up.
    assert {"bank_fee", "reference_split"} <= set(Match.objects.values_list("rule", flat=True))
    health = client.get("/health").json()["checks"]["reconciliation"]
    assert health["ok"] and health["openExceptions"] == strangers == health["unmatchedLineExceptions"]
    assert _scraped(client, settings, "vault_reconciliation_exceptions") == {
        'kind="unmatched_line"': strangers,
        'kind="unseen_expected"': 0,
    }
    quiet, error = command("reconcile", "--at", TUESDAY)
    assert error is None and quiet["exceptions"] == []  # exit 1 only when a new one appears


def test_an_expected_payment_the_bank_never_shows_becomes_an_exception(stating_bank, company):
    stating_bank.statement = "none"
    _day_at_the_bank(company)
    command("fetch_bank_files", "--at", FETCH_AT)
    _, error = command("reconcile", "--at", MONDAY_EVENING)
    assert error is None
    missing, error = command("reconcile", "--at", TUESDAY)
    assert error is not None and missing["unmatchedExpected"] == 3
    assert sorted(exception["amount"] for exception in missing["exceptions"]) == [700, 2500, 7000]
    assert set(ReconciliationException.objects.values_list("kind", flat=True)) == {"unseen_expected"}


def test_a_statement_of_another_account_is_set_aside(stating_bank, company, settings):
    settings.BANK_SETTLEMENT_ACCOUNT = "000111122223333"
    name = _day_at_the_bank(company)
    fetched, error = command("fetch_bank_files", "--at", FETCH_AT)
    assert error is not None and "not applied" in error
    (refusal,) = [item for item in fetched["exceptions"] if item["file"] == f"{name}.bai2"]
    assert "account ending 3210, not our settlement account" in refusal["reason"] and "ending 3333" in refusal["reason"]
    assert ACCOUNT not in refusal["reason"]  # the number is never said whole
    assert InboundFile.objects.get(name=f"{name}.bai2").state == InboundFile.State.REFUSED
    assert not Statement.objects.exists()


def test_reconcile_prints_one_json_line(db):
    out = io.StringIO()
    call_command("reconcile", "--at", TUESDAY, stdout=out)
    assert json.loads(out.getvalue()) == {
        "lines": 0,
        "matched": 0,
        "unmatchedLines": 0,
        "unmatchedExpected": 0,
        "exceptions": [],
    }
