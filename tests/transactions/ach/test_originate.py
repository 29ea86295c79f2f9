from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from tests.concurrency import at_once
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY, MONDAY_MORNING, bank_txn, run
from transactions.models import Batch, OriginationFile, Transaction

pytestmark = pytest.mark.django_db


def _read_all(paths: list[str]) -> list[nacha_reader.ReadFile]:
    return [nacha_reader.read(Path(path).read_text()) for path in paths]


def test_originate_writes_a_valid_nacha_file_with_debits_and_credits(company, other_company, settings):
    debit = bank_txn(company, amount=1500, account_number="111122223333", routing_number="021000021")
    savings_debit = bank_txn(
        company, amount=250, account_type="Savings", routing_number="011000015", account_number="44445555"
    )
    credit = bank_txn(company, type="Credit", amount=700, routing_number="091000019")
    savings_credit = bank_txn(company, type="Credit", amount=99, account_type="Savings")
    rcc = bank_txn(company, method="RCC", standard_entry_class_code="", amount=1234)
    other = bank_txn(other_company, amount=5000, standard_entry_class_code="PPD")

    summary = run("originate", "--at", MONDAY_MORNING)

    assert summary["batches"] == 3  # company WEB, company TEL (the RCC), other company PPD
    assert summary["transactions"] == 6
    assert len(summary["files"]) == 1
    path = Path(summary["files"][0])
    assert path.parent == Path(settings.OUTBOUND_DIR)
    read = nacha_reader.read(path.read_text())
    assert read.destination == " 091000019"
    assert read.origin == " 021000021"
    by_sec = {(batch.company_id, batch.sec): batch for batch in read.batches}
    web = by_sec[(company.ach_company_id, "WEB")]
    assert web.service_class == "200"  # debits and credits in one batch
    assert web.company_name == company.name.upper()
    assert web.effective_date == "261207"
    codes = {entry.individual_id: entry.transaction_code for entry in web.entries}
    assert codes == {
        str(debit.pk): "27",
        str(savings_debit.pk): "37",
        str(credit.pk): "22",
        str(savings_credit.pk): "32",
    }
    accounts = {entry.individual_id: (entry.routing, entry.account, entry.amount) for entry in web.entries}
    assert accounts[str(debit.pk)] == ("021000021", "111122223333", 1500)
    assert accounts[str(savings_debit.pk)] == ("011000015", "44445555", 250)
    assert by_sec[(company.ach_company_id, "TEL")].entries[0].amount == rcc.amount
    other_batch = by_sec[(other_company.ach_company_id, "PPD")]
    assert other_batch.service_class == "225"
    assert [entry.individual_id for entry in other_batch.entries] == [str(other.pk)]

    for txn in Transaction.objects.all():
        assert txn.status == "Processing"
        assert txn.batch is not None and txn.batch.company_id == txn.company_id
        assert txn.trace_number.startswith(settings.ACH_ORIGINATING_DFI) and len(txn.trace_number) == 15
        assert txn.expected_to_settle_at == datetime(2026, 12, 7, 22, 0, tzinfo=UTC)  # 17:00 Eastern
    traces = {entry.trace for batch in read.batches for entry in batch.entries}
    assert traces == set(Transaction.objects.values_list("trace_number", flat=True))
    origination = OriginationFile.objects.get()
    assert origination.path == str(path)
    assert (origination.entry_count, origination.debit_total, origination.credit_total) == (6, 7984, 799)
    assert Batch.objects.filter(origination_file=origination).count() == 3


def test_only_due_pending_ach_and_rcc_are_originated(company):
    due_earlier = bank_txn(company, effective_date=datetime(2026, 12, 3).date())
    tomorrow = bank_txn(company, effective_date=datetime(2026, 12, 8).date())  # goes out today, next day
    future = bank_txn(company, effective_date=datetime(2026, 12, 9).date())
    held = bank_txn(company, status="HELD")
    rtp = bank_txn(company, method="RTP", standard_entry_class_code="")
    card = bank_txn(company, method="CRD", standard_entry_class_code="")

    summary = run("originate", "--at", MONDAY_MORNING)

    assert summary["transactions"] == 2
    due_earlier.refresh_from_db()
    assert due_earlier.status == "Processing" and due_earlier.batch.effective_date == MONDAY
    tomorrow.refresh_from_db()
    assert tomorrow.batch.effective_date == tomorrow.effective_date == datetime(2026, 12, 8).date()
    assert not tomorrow.is_same_day  # it asked for same day, but not for today
    for txn in (future, held, rtp, card):
        txn.refresh_from_db()
        assert txn.batch_id is None and txn.trace_number == ""


def test_after_the_same_day_window_the_next_business_day_goes_out(company):
    monday = bank_txn(company)
    tuesday = bank_txn(company, effective_date=datetime(2026, 12, 8).date())
    summary = run("originate", "--at", "2026-12-07T23:00:00Z")  # 18:00 Eastern: next-day file for Tuesday
    assert summary["transactions"] == 2
    tuesday.refresh_from_db()
    monday.refresh_from_db()
    assert tuesday.batch.effective_date == datetime(2026, 12, 8).date()
    assert monday.expected_to_settle_at == datetime(2026, 12, 8, 22, 0, tzinfo=UTC)


def test_rerun_originates_nothing_twice_and_trace_numbers_continue(company):
    bank_txn(company)
    first = run("originate", "--at", MONDAY_MORNING)
    second = run("originate", "--at", MONDAY_MORNING)
    assert second == {"files": [], "batches": 0, "transactions": 0, "refused": [], "unwrittenFiles": []}
    late = bank_txn(company)
    third = run("originate", "--at", "2026-12-07T16:00:00Z")
    assert third["transactions"] == 1 and len(third["files"]) == 1
    assert third["files"] != first["files"]
    modifiers = list(OriginationFile.objects.order_by("id").values_list("file_id_modifier", flat=True))
    assert modifiers == ["A", "B"]
    late.refresh_from_db()
    first_trace = Transaction.objects.exclude(pk=late.pk).get().trace_number
    assert int(late.trace_number) == int(first_trace) + 1
    _read_all(first["files"] + third["files"])


def test_crash_after_batching_is_finished_by_the_next_run(company, monkeypatch):
    txn = bank_txn(company, amount=4321)

    def crash(*args, **kwargs):
        raise OSError("disk went away")

    monkeypatch.setattr("transactions.ach.origination.os.replace", crash)
    with pytest.raises(CommandError, match="1 NACHA file"):
        run("originate", "--at", MONDAY_MORNING)
    txn.refresh_from_db()
    assert txn.status == "Processing"  # batching committed; the file was not written
    assert OriginationFile.objects.get().path == ""
    monkeypatch.undo()

    summary = run("originate", "--at", MONDAY_MORNING)

    assert summary["transactions"] == 0 and summary["batches"] == 0
    assert len(summary["files"]) == 1
    read = nacha_reader.read(Path(summary["files"][0]).read_text())
    assert [entry.amount for batch in read.batches for entry in batch.entries] == [4321]
    assert run("originate", "--at", MONDAY_MORNING)["files"] == []


def test_account_numbers_are_not_logged(company, caplog):
    bank_txn(company, account_number="987654321012")
    with caplog.at_level(logging.DEBUG):
        run("originate", "--at", MONDAY_MORNING)
    assert "987654321012" not in caplog.text


def test_many_entries_block_and_hash_correctly(company):
    routings = ["021000021", "011000015", "091000019", "122105278", "026009593"]
    for index in range(23):
        bank_txn(
            company,
            amount=100 + index,
            routing_number=routings[index % len(routings)],
            type="Credit" if index % 4 == 0 else "Debit",
        )
    summary = run("originate", "--at", MONDAY_MORNING)
    (read,) = _read_all(summary["files"])
    assert read.record_count == 30  # 1 + 1 + 23 + 1 + 1 = 27 records, blocked to 30
    assert len(read.batches[0].entries) == 23


@pytest.mark.parametrize("value", ["yesterday", "2026-12-07T10:00:00+05:00", "2026-13-01T00:00:00Z"])
def test_bad_at_is_a_command_error(db, value):
    with pytest.raises(CommandError):
        run("originate", "--at", value)


def test_customer_name_is_ascii_upper_case_in_the_file(company):
    bank_txn(company, name="Zoë Ñúñez-O'Brien")
    summary = run("originate", "--at", MONDAY_MORNING)
    (read,) = _read_all(summary["files"])
    assert read.batches[0].entries[0].name == "ZOE NUNEZ-O'BRIEN"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_originate_runs_send_each_transaction_once(company):
    for index in range(40):
        bank_txn(company, amount=100 + index)
    # at_once raises the first error any run hit.
    results = at_once(lambda: run("originate", "--at", MONDAY_MORNING), 3)
    assert sum(result["transactions"] for result in results) == 40
    files = [path for result in results for path in result["files"]]
    amounts = sorted(entry.amount for read in _read_all(files) for batch in read.batches for entry in batch.entries)
    assert amounts == [100 + index for index in range(40)]
    assert Transaction.objects.filter(status="Processing").count() == 40


@pytest.mark.parametrize("tamper", ["amount", "hash", "padding", "length"])
def test_the_independent_reader_rejects_a_tampered_file(company, tmp_path, tamper):
    bank_txn(company, amount=1500)
    summary = run("originate", "--at", MONDAY_MORNING)
    lines = Path(summary["files"][0]).read_text().split("\n")[:-1]
    entry = next(index for index, line in enumerate(lines) if line.startswith("6"))
    control = next(index for index, line in enumerate(lines) if line.startswith("8"))
    if tamper == "amount":
        lines[entry] = lines[entry][:29] + "0000001501" + lines[entry][39:]
    elif tamper == "hash":
        lines[control] = lines[control][:10] + "0000000001" + lines[control][20:]
    elif tamper == "padding":
        lines = lines[:-1]
    else:
        lines[entry] = lines[entry] + " "
    with pytest.raises(nacha_reader.Invalid):
        nacha_reader.read("\n".join(lines) + "\n")
