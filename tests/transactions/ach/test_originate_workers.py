"""`originate --workers N` on PostgreSQL: companies batch into one file on N connections at once, each in a
database transaction of its own. The file is written only once every company is in; a run that stops midway
leaves it being built, and the next run batches the rest into the same file."""

from __future__ import annotations

from pathlib import Path

import pytest

import nacha
from accounts.models import Company
from events.models import Event
from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run
from transactions.ach import origination
from transactions.models import Batch, OriginationFile, Status, Transaction

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _companies_with_entries(count: int) -> dict[int, list[int]]:
    """`count` companies, each with a same-day debit, a same-day credit and a next-day debit of its own amounts:
    company id -> the amounts."""
    amounts = {}
    for n in range(count):
        company = factories.CompanyFactory()
        bank_txn(company, amount=1000 + n)
        bank_txn(company, type="Credit", amount=500 + n)
        bank_txn(company, amount=2000 + n, is_same_day=False)
        amounts[company.pk] = [1000 + n, 500 + n, 2000 + n]
    return amounts


def _file_read(path: str) -> nacha_reader.ReadFile:
    return nacha_reader.read(Path(path).read_text())


def _batches_by_company(read: nacha_reader.ReadFile) -> list[tuple[int, str, list[int]]]:
    """(batch number, company's ACH id, amounts) of each batch, in file order."""
    return [(batch.number, batch.company_id, sorted(entry.amount for entry in batch.entries)) for batch in read.batches]


def test_companies_batched_on_two_workers_make_the_file_one_after_another_makes():
    amounts = _companies_with_entries(5)

    summary = run("originate", "--at", MONDAY_MORNING, "--workers", "2")

    assert (summary["transactions"], summary["batches"]) == (15, 10)  # same-day and next-day batches per company
    (path,) = summary["files"]
    read = _file_read(path)
    # Batches are numbered 1..n in company order, whichever thread made them.
    ach_ids = {company.pk: company.ach_company_id for company in Company.objects.all()}
    assert [number for number, _company, _amounts in _batches_by_company(read)] == list(range(1, 11))
    assert [company for _number, company, _amounts in _batches_by_company(read)] == [
        ach_ids[pk] for pk in sorted(amounts) for _batch in range(2)
    ]
    assert sorted(amount for _n, _c, found in _batches_by_company(read) for amount in found) == sorted(
        amount for listed in amounts.values() for amount in listed
    )
    traces = [entry.trace for batch in read.batches for entry in batch.entries]
    assert len(set(traces)) == 15
    for batch in read.batches:
        assert [entry.trace for entry in batch.entries] == sorted(entry.trace for entry in batch.entries)
    origination_file = OriginationFile.objects.get()
    assert not origination_file.building
    assert (origination_file.batch_count, origination_file.entry_count) == (10, 15)
    assert origination_file.debit_total == sum(listed[0] + listed[2] for listed in amounts.values())
    assert origination_file.credit_total == sum(listed[1] for listed in amounts.values())
    processing = Event.objects.filter(type="transaction.processing").values_list("object_uuid", flat=True)
    assert sorted(processing) == sorted(Transaction.objects.values_list("uuid", flat=True))
    assert set(Transaction.objects.values_list("status", flat=True)) == {Status.PROCESSING}


def test_a_run_that_stops_midway_leaves_the_file_unsent_and_the_next_run_finishes_it(monkeypatch):
    amounts = _companies_with_entries(4)
    failing = sorted(amounts)[2]
    company_batch = origination._company_batch

    def broken_for_one_company(company_id, **kwargs):
        if company_id == failing:
            raise RuntimeError("the connection to the database dropped")
        return company_batch(company_id, **kwargs)

    monkeypatch.setattr(origination, "_company_batch", broken_for_one_company)
    with pytest.raises(RuntimeError, match="connection to the database dropped"):
        run("originate", "--at", MONDAY_MORNING, "--workers", "2")

    building = OriginationFile.objects.get()
    assert building.building and building.path == "" and building.sha256 == ""
    # The failing company is not batched, nor one that had not started; each other company is batched whole.
    statuses = {pk: set(Transaction.objects.filter(company_id=pk).values_list("status", flat=True)) for pk in amounts}
    assert statuses[failing] == {Status.PENDING}
    assert all(found in ({Status.PENDING}, {Status.PROCESSING}) for found in statuses.values())
    left = sum(found == {Status.PENDING} for found in statuses.values())
    # Nothing of a file being built is written or settles, whoever asks.
    result = origination.OriginationResult()
    origination.built_files_write(result)
    assert result.files == [] and result.unwritten == []
    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 0

    monkeypatch.setattr(origination, "_company_batch", company_batch)
    summary = run("originate", "--at", MONDAY_MORNING, "--workers", "2")

    assert summary["transactions"] == 3 * left  # the companies left, into the same file
    (path,) = summary["files"]
    building.refresh_from_db()
    assert not building.building and building.path == path and building.file_id_modifier == "A"
    assert OriginationFile.objects.count() == 1
    read = _file_read(path)
    assert [batch.number for batch in read.batches] == list(range(1, 9))
    assert len({entry.trace for batch in read.batches for entry in batch.entries}) == 12
    assert (building.batch_count, building.entry_count) == (8, 12)
    assert Batch.objects.filter(origination_file=building).count() == 8
    assert not Transaction.objects.exclude(status=Status.PROCESSING).exists()
    assert run("settle", "--at", MONDAY_SETTLED)["transactions"] == 8  # the same-day entries


def test_a_file_left_being_built_on_an_earlier_day_goes_out_as_it_is_the_next_day(monkeypatch):
    amounts = _companies_with_entries(2)
    first, second = sorted(amounts)
    company_batch = origination._company_batch

    def broken_for_the_second(company_id, **kwargs):
        if company_id == second:
            raise RuntimeError("killed")
        return company_batch(company_id, **kwargs)

    monkeypatch.setattr(origination, "_company_batch", broken_for_the_second)
    with pytest.raises(RuntimeError, match="killed"):
        run("originate", "--at", MONDAY_MORNING, "--workers", "1")
    monkeypatch.setattr(origination, "_company_batch", company_batch)

    summary = run("originate", "--at", "2026-12-08T15:00:00Z")  # Tuesday

    monday_file, tuesday_file = OriginationFile.objects.order_by("window_at")
    assert not monday_file.building and not tuesday_file.building
    assert sorted(summary["files"]) == sorted([monday_file.path, tuesday_file.path])
    assert set(
        Transaction.objects.filter(batch__origination_file=monday_file).values_list("company_id", flat=True)
    ) == {first}
    assert set(
        Transaction.objects.filter(batch__origination_file=tuesday_file).values_list("company_id", flat=True)
    ) == {second}
    assert sorted(entry.amount for batch in _file_read(monday_file.path).batches for entry in batch.entries) == sorted(
        amounts[first]
    )


def test_the_file_copies_the_entries_each_company_rendered_when_it_finished(monkeypatch, settings):
    _companies_with_entries(4)
    spooled = []
    clear = origination.EntrySpool.clear

    def noted_clear(spool):
        spooled.append(sorted(spool.paths))
        clear(spool)

    monkeypatch.setattr(origination.EntrySpool, "clear", noted_clear)
    summary = run("originate", "--at", MONDAY_MORNING, "--workers", "2")

    origination_file = OriginationFile.objects.get()
    assert spooled == [sorted(Batch.objects.values_list("pk", flat=True))]  # every batch's entries were rendered early
    # What it copied is, byte for byte, the file rendered from the database.
    assert Path(summary["files"][0]).read_text() == nacha.file_text(origination.file_spec(origination_file))
    assert not (Path(settings.OUTBOUND_DIR) / origination.SPOOL_DIR).exists()  # no account number left beside it


def test_a_spool_that_is_gone_when_the_file_is_written_is_rendered_from_the_database(monkeypatch):
    amounts = _companies_with_entries(3)
    write = origination.EntrySpool.write

    def written_then_lost(spool, origination_file, batches):
        batches = list(batches)
        write(spool, origination_file, batches)
        for batch in batches:  # this company's: another thread is adding its own meanwhile
            spool.paths[batch.pk].unlink()

    monkeypatch.setattr(origination.EntrySpool, "write", written_then_lost)
    summary = run("originate", "--at", MONDAY_MORNING, "--workers", "2")

    (path,) = summary["files"]
    assert Path(path).read_text() == nacha.file_text(origination.file_spec(OriginationFile.objects.get()))
    assert sorted(entry.amount for batch in _file_read(path).batches for entry in batch.entries) == sorted(
        amount for listed in amounts.values() for amount in listed
    )
