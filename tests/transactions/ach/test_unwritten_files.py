"""Settle only what was sent: a batch whose NACHA file was never written does not settle, is listed as an
exception (settle's JSON, the admin) and the next `originate` writes its file."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, bank_txn, run
from transactions.models import OriginationFile, Settlement

pytestmark = pytest.mark.django_db


def _originate_failing() -> dict:
    out = io.StringIO()
    with pytest.raises(CommandError, match="1 NACHA file"):
        call_command("originate", "--at", MONDAY_MORNING, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def test_a_batch_whose_file_was_not_written_does_not_settle_and_the_next_originate_writes_it(
    company, settings, tmp_path
):
    txn = bank_txn(company, amount=4321)
    good_dir = settings.OUTBOUND_DIR
    # A real write failure: the outbound directory cannot be created under a regular file.
    (tmp_path / "not-a-directory").write_text("")
    settings.OUTBOUND_DIR = tmp_path / "not-a-directory" / "outbound"

    failed = _originate_failing()

    origination_file = OriginationFile.objects.get()
    assert failed["files"] == [] and failed["transactions"] == 1
    assert [item["originationFileUuid"] for item in failed["unwrittenFiles"]] == [str(origination_file.uuid)]
    assert (origination_file.path, origination_file.sha256) == ("", "")
    txn.refresh_from_db()
    assert txn.status == "Processing"

    summary = run("settle", "--at", MONDAY_SETTLED)

    assert (summary["settlements"], summary["transactions"]) == (0, 0)
    assert summary["unwrittenBatches"] == [
        {
            "batchUuid": str(txn.batch.uuid),
            "batchNumericId": txn.batch_id,
            "originationFileUuid": str(origination_file.uuid),
            "effectiveDate": "2026-12-07",
            "transactions": 1,
        }
    ]
    txn.refresh_from_db()
    assert txn.status == "Processing" and txn.settlement_id is None
    assert not Settlement.objects.exists()

    admin = Client()
    admin.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    listed = admin.get("/admin/transactions/batch/", {"file": "unwritten"})
    assert listed.status_code == 200 and str(txn.batch.uuid) in listed.content.decode()
    assert str(txn.batch.uuid) not in admin.get("/admin/transactions/batch/", {"file": "written"}).content.decode()

    settings.OUTBOUND_DIR = good_dir
    written = run("originate", "--at", MONDAY_MORNING)

    assert written["transactions"] == 0 and written["unwrittenFiles"] == []
    (path,) = written["files"]
    origination_file.refresh_from_db()
    assert origination_file.path == path
    assert origination_file.sha256 == hashlib.sha256(Path(path).read_bytes()).hexdigest()
    read = nacha_reader.read(Path(path).read_text())
    assert [(entry.trace, entry.amount) for batch in read.batches for entry in batch.entries] == [
        (txn.trace_number, 4321)
    ]
    assert str(txn.batch.uuid) in admin.get("/admin/transactions/batch/", {"file": "written"}).content.decode()

    settled = run("settle", "--at", MONDAY_SETTLED)

    assert (settled["transactions"], settled["unwrittenBatches"]) == (1, [])
    txn.refresh_from_db()
    assert txn.status == "Settled"


def test_a_file_recorded_without_its_digest_is_not_settled(company):
    """Path alone is not enough: settle wants both the path and the SHA-256 of what was written."""
    txn = bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    OriginationFile.objects.update(sha256="")

    summary = run("settle", "--at", MONDAY_SETTLED)

    assert summary["transactions"] == 0 and len(summary["unwrittenBatches"]) == 1
    txn.refresh_from_db()
    assert txn.status == "Processing"
