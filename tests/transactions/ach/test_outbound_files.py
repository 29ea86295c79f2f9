"""NACHA files on disk (review M1): every entry carries a full account number, so files are 0600 in a 0700
folder, and `purge_outbound` deletes them after retention while their database record stays."""

from __future__ import annotations

import hashlib
import os
import stat
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management.base import CommandError
from django.utils import timezone

from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from transactions.models import OriginationFile

pytestmark = pytest.mark.django_db


@pytest.fixture
def open_umask():
    previous = os.umask(0o022)  # the usual default: files 0644, folders 0755 unless the code says otherwise
    yield
    os.umask(previous)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_nacha_file_is_0600_in_a_0700_folder(company, outbound_dir, open_umask):
    bank_txn(company)
    (path,) = run("originate", "--at", MONDAY_MORNING)["files"]
    assert _mode(Path(path)) == 0o600
    assert _mode(outbound_dir) == 0o700


def test_an_existing_open_folder_is_closed_before_writing(company, outbound_dir, open_umask):
    outbound_dir.mkdir(mode=0o755)
    bank_txn(company)
    run("originate", "--at", MONDAY_MORNING)
    assert _mode(outbound_dir) == 0o700


def test_the_record_keeps_the_sha256_of_the_file(company):
    bank_txn(company)
    (path,) = run("originate", "--at", MONDAY_MORNING)["files"]
    assert OriginationFile.objects.get().sha256 == hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _originated_days_ago(company, days: int) -> tuple[OriginationFile, Path]:
    bank_txn(company)
    (path,) = run("originate", "--at", MONDAY_MORNING)["files"]
    record = OriginationFile.objects.get(path=path)
    OriginationFile.objects.filter(pk=record.pk).update(created_at=timezone.now() - timedelta(days=days, minutes=1))
    record.refresh_from_db()
    return record, Path(path)


def test_purge_outbound_deletes_files_past_retention_and_keeps_their_record(company, outbound_dir):
    old, old_path = _originated_days_ago(company, 7)
    summary = run("purge_outbound")
    assert summary == {"purgedFiles": 1, "alreadyGone": 0}
    assert not old_path.exists()
    old.refresh_from_db()
    assert old.purged_at is not None
    assert (old.path, old.entry_count, old.debit_total) == (str(old_path), 1, old.debit_total)
    assert len(old.sha256) == 64
    assert run("purge_outbound") == {"purgedFiles": 0, "alreadyGone": 0}


def test_purge_outbound_keeps_files_within_retention(company):
    _record, path = _originated_days_ago(company, 3)
    assert run("purge_outbound") == {"purgedFiles": 0, "alreadyGone": 0}
    assert path.exists()
    assert run("purge_outbound", "--older-than", "2") == {"purgedFiles": 1, "alreadyGone": 0}
    assert not path.exists()


@pytest.mark.parametrize("value", ["-1", "seven"])
def test_purge_outbound_bad_retention_is_a_command_error(db, value):
    with pytest.raises(CommandError):
        run("purge_outbound", "--older-than", value)
