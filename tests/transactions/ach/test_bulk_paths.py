"""originate, settle and import_returns write the same rows whatever the size of the run: a run of a few entries
takes the per-row and ORM paths, a run of many takes the chunked, array and COPY paths (PostgreSQL). Here the same
day is played twice, for two companies, the second time with every chunk and threshold at 1 or 2, and the trails
(TransactionEvent) and outbox events (Event) of both must be the same, row for row."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from events import outbox as event_outbox
from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run, saved_method_txn
from transactions import events as transaction_events
from transactions import state
from transactions.ach import origination, returns, settlement
from transactions.models import Transaction, TransactionEvent
from transactions.sandbox.bank_files import return_file_for
from vault import db as vault_db

pytestmark = pytest.mark.django_db

RETURNS_AT = "2026-12-08T15:00:00Z"
# What differs between two companies' rows for the same story: identifiers and the moments they were made.
VOLATILE = {"uuid", "numericId", "createdAt", "sequenceUuid", "customerUuid", "paymentMethodUuid", "transactionUuid"}


def _day(company, tmp_path, tag: str) -> tuple[list, list]:
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer, account_number="000123456789", account_type="Checking")
    entries = [
        bank_txn(company, amount=1001),
        bank_txn(company, amount=1002, account_number="555000111"),
        bank_txn(company, amount=1003, account_type="Savings", standard_entry_class_code="PPD"),
        bank_txn(company, amount=1004, type="Credit", standard_entry_class_code="PPD"),
        bank_txn(company, amount=1005, is_same_day=False),
        saved_method_txn(method, amount=1006),
    ]
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    sent = {txn.amount: txn for txn in Transaction.objects.filter(pk__in=[txn.pk for txn in entries])}
    at = datetime(2026, 12, 8, 15, tzinfo=UTC)
    returned = tmp_path / f"returns-{tag}.ach"
    returned.write_text(
        return_file_for([(sent[1001], "R01", {}), (sent[1002], "R03", {}), (sent[1006], "R02", {})], at=at)
    )
    noticed = tmp_path / f"nocs-{tag}.ach"
    noticed.write_text(return_file_for([(sent[1003], "C05", {"accountType": "Checking"})], at=at))
    assert run("import_returns", str(returned), "--at", RETURNS_AT)["returns"] == 3
    assert run("import_returns", str(noticed), "--at", RETURNS_AT)["notices"] == 1
    run("settle", "--at", "2026-12-08T22:00:01Z")
    names = {txn.pk: txn.amount for txn in Transaction.objects.filter(company=company)}
    trail = sorted(
        (names[row.transaction_id], row.event, row.from_status, row.to_status, row.caller, row.actor, row.reason)
        for row in TransactionEvent.objects.filter(company=company)
    )
    outbox = sorted(
        (
            event.type,
            event.data.get("amount") or 0,
            event.sequence,
            sorted((key, str(value)) for key, value in event.data.items() if key not in VOLATILE),
        )
        for event in Event.objects.filter(company=company)
        if event.type.startswith(("transaction.", "account.", "payment_method."))
    )
    return trail, outbox


def test_a_day_in_chunks_of_one_writes_what_a_day_in_one_piece_writes(tmp_path, monkeypatch):
    whole = _day(factories.CompanyFactory(), tmp_path, "whole")

    for module, name, value in (
        (origination, "BATCH_CHUNK", 2),
        (vault_db, "ARRAY_UPDATE_CHUNK", 2),
        (vault_db, "UPDATE_CHUNK", 2),
        (state, "EVENT_ARRAY_THRESHOLD", 1),
        (transaction_events, "WEBHOOK_CHUNK", 2),
        (event_outbox, "COPY_THRESHOLD", 1),
        (returns, "LOCK_CHUNK", 2),
        (settlement, "SETTLE_CHUNK", 2),
    ):
        monkeypatch.setattr(module, name, value)
    chunked = _day(factories.CompanyFactory(), tmp_path, "chunked")

    assert chunked[0] == whole[0]
    assert chunked[1] == whole[1]
    assert (len(whole[0]), len(whole[1])) == (21, 18)  # trail: created, originated, settled, returned
