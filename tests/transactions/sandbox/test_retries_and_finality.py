"""The sandbox clock runs run_retries and mark_final (CONTRACT 15): a developer sees an R01 re-presented under the
retry policy until the count is used, and a good debit turn available and then final."""

from __future__ import annotations

import pytest

from events.models import Event
from tests.transactions.sandbox.conftest import advance, charge, ok, saved_account, status_of
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_company_hold(sandbox_company):
    # Every debit here comes back R01: the return-rate program would hold the re-presentments otherwise.
    sandbox_company.merchant_settings.hold_debits_on_breach = False
    sandbox_company.merchant_settings.save(update_fields=["hold_debits_on_breach"])


def test_an_r01_is_re_presented_by_the_clock_until_the_count_is_used(sandbox_client):
    policy = {"enabled": True, "attempts": 2, "schedule": {"type": "after_banking_days", "days": 1}}
    ok(sandbox_client.put("/settings/retry-policy", policy, format="json"))
    first = charge(sandbox_client, *saved_account(sandbox_client, "00055501"))

    made = []
    for _day in range(3):  # sent, settled and returned R01 on its settlement day
        made.append(advance(sandbox_client, 1)["retries"])
        if status_of(sandbox_client, first["uuid"])["status"] == "Returned":
            break
    retry = status_of(sandbox_client, first["uuid"])["retry"]
    assert (retry["willAttemptRetry"], retry["attempt"], retry["status"]) == (True, 1, "scheduled")
    for _day in range(8):  # each attempt is made, sent and returned again, until the count of 2 is used
        made.append(advance(sandbox_client, 1)["retries"])
    assert sum(made) == 2

    original = Transaction.objects.get(uuid=first["uuid"])
    assert original.retries.count() == 2
    assert {status_of(sandbox_client, str(r.uuid))["entryDescription"] for r in original.retries.all()} == {
        "RETRY PYMT"
    }
    last = original.retries.order_by("pk").last()
    assert status_of(sandbox_client, str(last.uuid))["retry"]["willAttemptRetry"] is False
    assert Event.objects.filter(object_uuid=last.uuid, type="transaction.retries_exhausted").count() == 1
    assert advance(sandbox_client, 3)["retries"] == 0


def test_a_good_debit_turns_available_then_final_as_the_clock_moves(sandbox_client):
    paid = charge(sandbox_client, *saved_account(sandbox_client, "000123456789"))

    first = advance(sandbox_client, 2)  # sent, then settled on its effective day
    record = status_of(sandbox_client, paid["uuid"])
    assert (record["status"], record["finality"], first["fundsAvailable"]) == ("Settled", "pending", 0)
    assert advance(sandbox_client, 2)["fundsAvailable"] == 1  # the default hold: 2 banking days
    assert status_of(sandbox_client, paid["uuid"])["finality"] == "available"
    later = advance(sandbox_client, 45)  # past the 60 calendar days
    record = status_of(sandbox_client, paid["uuid"])
    assert (record["finality"], later["final"]) == ("final", 1)
    assert record["finalAt"] is not None


def test_the_risk_reset_releases_the_re_presentment_its_own_return_held(sandbox_client, sandbox_company):
    """Newcomer review 2026-12-07 D2: the R01 the retry policy exists for tripped the return-rate program, the
    re-presentment was made HELD, and POST /sandbox/risk/reset, which its reason named, left it HELD."""
    sandbox_company.merchant_settings.hold_debits_on_breach = True
    sandbox_company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    policy = {"enabled": True, "attempts": 1, "schedule": {"type": "after_banking_days", "days": 1}}
    ok(sandbox_client.put("/settings/retry-policy", policy, format="json"))
    first = charge(sandbox_client, *saved_account(sandbox_client, "00055501"))
    for _day in range(4):
        advance(sandbox_client, 1)
        if Transaction.objects.filter(retry_of__uuid=first["uuid"]).exists():
            break
    retry = Transaction.objects.get(retry_of__uuid=first["uuid"])
    held = status_of(sandbox_client, str(retry.uuid))
    assert (held["status"], held["holdCode"]) == ("HELD", "RTN")
    assert "releases them" in held["holdReason"]

    reset = ok(sandbox_client.post("/sandbox/risk/reset"))

    assert (reset["holdsLifted"], reset["debitsReleased"]) == (1, 1)
    assert status_of(sandbox_client, str(retry.uuid))["status"] == "Pending"
    assert Event.objects.filter(object_uuid=retry.uuid, type="transaction.released").count() == 1
