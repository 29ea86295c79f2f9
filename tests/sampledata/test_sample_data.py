"""Demo and sample data stay out of production and out of the money flow (review L5): `bootstrap_demo` and
`seed_transactions` refuse to run with DEBUG off unless told `--allow-production`, and seeded rows are never
originated or settled."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import User
from tests import factories
from transactions.ach.origination import transactions_originate
from transactions.ach.settlement import transactions_settle
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def _seed_args(company) -> list[str]:
    return ["seed_transactions", "--company", str(company.uuid), "--count", "300", "--verbosity", "0"]


def _run(*args: str) -> dict:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return json.loads(out.getvalue())


def test_bootstrap_demo_with_debug_off_refuses_and_creates_nothing(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--allow-production"):
        _run("bootstrap_demo")
    assert not User.objects.exists()
    assert not Transaction.objects.exists()


def test_seed_transactions_with_debug_off_refuses_and_creates_nothing(settings, company):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="--allow-production"):
        _run(*_seed_args(company))
    assert not Transaction.objects.exists()


def test_allow_production_runs_them_with_debug_off(settings, company):
    settings.DEBUG = False
    assert _run(*_seed_args(company), "--allow-production")["transactions"] == 300
    assert _run("bootstrap_demo", "--allow-production")["email"] == "demo@example.com"


@pytest.mark.usefixtures("debug_mode")
def test_seeded_rows_are_never_originated_or_settled(company, settings, tmp_path):
    settings.OUTBOUND_DIR = tmp_path / "outbound"
    # The generator's randomness is keyed by the company's id, which depends on the tests run before; 300 rows
    # sometimes hold no authorised card sale still to capture, 2,000 always do.
    _run(*_seed_args(company)[:-4], "--count", "2000", "--verbosity", "0")
    seeded = Transaction.objects.filter(company=company)
    pending_bank = seeded.filter(status="Pending", method__in=["ACH", "RCC"])
    card_to_capture = seeded.filter(status="Pending", method="CRD", authorized_at__isnull=False)
    assert pending_bank.exists() and card_to_capture.exists(), "the seed makes rows originate and settle would take"
    before = list(seeded.order_by("pk").values_list("pk", "status", "batch_id", "settlement_id", "captured_at"))
    real = factories.TransactionFactory(company=company, effective_date="2040-01-02")

    far_future = datetime(2040, 1, 2, 23, tzinfo=UTC)
    originated = transactions_originate(at=far_future)
    transactions_settle(at=datetime(2040, 1, 9, 23, tzinfo=UTC))

    assert originated.transactions == 1  # the real row only
    real.refresh_from_db()
    assert real.status == "Settled"
    after = list(
        seeded.exclude(pk=real.pk)
        .order_by("pk")
        .values_list("pk", "status", "batch_id", "settlement_id", "captured_at")
    )
    assert after == before
