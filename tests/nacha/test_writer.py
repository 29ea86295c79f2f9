"""The origination writer totals each batch and the file from the integers its entries carry: a batch rendered
earlier (the entry spool) brings the totals of the entries that made it, and the text is never read back."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from achkit.validate import validate as achkit_validate

import nacha
from tests.transactions.ach import nacha_reader

pytestmark = pytest.mark.database_free

ENTRIES = (
    nacha.Entry("27", "021000021", "12345678", 1500, "1", "ADA LOVELACE", "021000020000001"),
    nacha.Entry("22", "011000015", "87654321", 700, "2", "ALAN TURING", "021000020000002"),
    nacha.Entry("28", "021000021", "55500011", 0, "3", "GRACE HOPPER", "021000020000003"),  # a debit prenote
)


def _file(batch: nacha.BatchSpec) -> str:
    return nacha.file_text(
        nacha.FileSpec(
            immediate_destination="021000021",
            immediate_origin="021000021",
            destination_name="BANK",
            origin_name="VAULT",
            originating_dfi="02100002",
            created_at=datetime(2026, 12, 7, 15, 30, tzinfo=UTC),
            file_id_modifier="A",
            batches=[batch],
        )
    )


def _batch(**records) -> nacha.BatchSpec:
    return nacha.BatchSpec("VAULT", "1234567890", "PPD", "PAYMENT", date(2026, 12, 8), 1, **records)


def test_the_controls_add_up_the_entries_integers_and_independent_readers_agree():
    text = _file(_batch(entries=ENTRIES))
    assert achkit_validate(text)["errors"] == []
    read = nacha_reader.read(text)
    (batch,) = read.batches
    assert batch.service_class == nacha.SERVICE_CLASS_MIXED
    control = nacha.parse(nacha.FILE_CONTROL, text.splitlines()[6])
    assert (control["debit_total"], control["credit_total"]) == ("000000001500", "000000000700")
    assert control["entry_hash"] == str(2 * 2100002 + 1100001).rjust(10, "0")


def test_a_batch_rendered_earlier_is_totalled_by_the_totals_it_brings_never_by_its_text():
    records = list(nacha.entry_records(ENTRIES))
    spooled = _file(_batch(records=records, totals=nacha.entry_totals(ENTRIES)))
    assert spooled == _file(_batch(entries=ENTRIES))
    # Totals that disagree with the text are written as given: the writer does not parse its records back.
    other = nacha.entry_totals(ENTRIES[:1] + (ENTRIES[1],) * 2)
    assert "000000001400" in _file(_batch(records=records, totals=other)).splitlines()[5]


def test_a_batch_rendered_earlier_without_its_totals_is_refused():
    with pytest.raises(ValueError, match="come with their totals"):
        _file(_batch(records=list(nacha.entry_records(ENTRIES))))
    with pytest.raises(ValueError, match="their totals count"):
        _file(_batch(records=list(nacha.entry_records(ENTRIES[:2])), totals=nacha.entry_totals(ENTRIES)))
