from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from django.core.management.base import CommandError

from tests.transactions.ach.conftest import MONDAY_MORNING, bank_txn, run
from transactions.models import TransactionHold

pytestmark = pytest.mark.django_db


def _held(company, **overrides):
    txn = bank_txn(company, status="HELD", amount=2_000_000, **overrides)
    TransactionHold.objects.create(company=company, transaction=txn, hold_code="AMT", hold_reason="over hold limit")
    return txn


def test_release_moves_held_to_pending_and_originate_sends_it(company):
    held = _held(company)
    summary = run("release_holds", "--uuid", str(held.uuid), "--at", "2026-12-07T14:00:00Z")
    assert summary == {"released": 1, "notReleased": []}
    held.refresh_from_db()
    assert held.status == "Pending"
    assert held.hold.released_at == datetime(2026, 12, 7, 14, tzinfo=UTC)
    assert held.hold.hold_code == "AMT"
    assert run("originate", "--at", MONDAY_MORNING)["transactions"] == 1


def test_non_held_and_unknown_uuids_are_reported_not_released(company):
    held = _held(company)
    pending = bank_txn(company)
    stranger = uuid.uuid4()
    summary = run("release_holds", "--uuid", str(held.uuid), "--uuid", str(pending.uuid), "--uuid", str(stranger))
    assert summary["released"] == 1
    assert summary["notReleased"] == [
        {"uuid": str(pending.uuid), "reason": "status is Pending, not HELD"},
        {"uuid": str(stranger), "reason": "not found"},
    ]
    pending.refresh_from_db()
    assert pending.status == "Pending"


def test_releasing_twice_releases_once(company):
    held = _held(company)
    run("release_holds", "--uuid", str(held.uuid), "--at", "2026-12-07T14:00:00Z")
    again = run("release_holds", "--uuid", str(held.uuid), "--at", "2026-12-07T15:00:00Z")
    assert again["released"] == 0
    held.refresh_from_db()
    assert held.hold.released_at == datetime(2026, 12, 7, 14, tzinfo=UTC)


@pytest.mark.parametrize("args", [["--uuid", "not-a-uuid"], [], ["--uuid", str(uuid.uuid4()), "--at", "soon"]])
def test_bad_arguments_are_command_errors(db, args):
    with pytest.raises(CommandError):
        run("release_holds", *args)
