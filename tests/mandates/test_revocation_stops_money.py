"""CONTRACT 14 (2026-12-07), ACH review H1 and security review H1: a revoked mandate stops money at once. Revoking
by the route, by support in the back office or by a return voids, in the same database transaction, every debit
under the mandate not yet in a file (a later effective date, a held one, a made re-presentment) and cancels its
scheduled re-presentments; `originate` and `release_holds` refuse a debit whose mandate is not active (the second
line of defence, for a revocation that came another way) and say so in their output."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from events.models import Event
from mandates.models import Mandate
from mandates.services import mandate_revoke
from tests.mandates.conftest import mandate_created
from tests.mandates.test_admin import _revoke, _staff_client
from tests.mandates.test_charges import debit
from tests.transactions.ach.conftest import run
from transactions.models import RetryAttempt, RetryPolicy, Transaction, TransactionHold
from transactions.sandbox.bank_files import return_file_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]

LATER = "2026-12-14"  # a Monday, the week after ORDINARY_BANKING_DAY (Tuesday 2026-12-08)
FRIDAY_BEFORE = "2026-12-11T15:00:00Z"  # its entries go out the banking day before
REASON = "payer called to stop all debits"


def _later_debit(client, account, mandate: str, **fields) -> str:
    made = debit(client, account, mandateUuid=mandate, effectiveDate=LATER, **fields)
    assert made.status_code == 201, made.content
    assert made.json()["data"]["status"] == "Pending"
    return made.json()["data"]["uuid"]


def _stopped(client, txn_uuid: str, reason: str = REASON) -> None:
    record = client.get(f"/transactions/{txn_uuid}").json()["data"]
    assert (record["status"], record["failureReason"]) == ("Voided", f"mandate revoked: {reason}")
    assert Event.objects.filter(type="transaction.voided", object_uuid=txn_uuid).count() == 1


def _nothing_sent() -> None:
    summary = run("originate", "--at", FRIDAY_BEFORE)
    assert (summary["files"], summary["transactions"], summary["refused"]) == ([], 0, [])


def test_revoking_by_the_route_voids_a_later_debit_and_originate_sends_nothing(api_client, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    later = _later_debit(api_client, account, mandate)

    response = api_client.post(f"/mandates/{mandate}/revoke", {"reason": REASON}, format="json")

    assert response.status_code == 200
    _stopped(api_client, later)
    _nothing_sent()


def test_revoking_in_the_back_office_voids_the_debits_too(api_client, company, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    later = _later_debit(api_client, account, mandate)
    support = _staff_client(company, "support@example.com", ["Support"])

    _revoke(support, Mandate.objects.get(uuid=mandate), reason=REASON)

    _stopped(api_client, later)
    trail = Transaction.objects.get(uuid=later).events.order_by("id").last()
    assert (trail.event, trail.caller, trail.to_status) == ("mandate_revoked", "admin", "Voided")
    _nothing_sent()


def test_a_return_that_revokes_the_mandate_voids_the_debits_still_unsent(api_client, account, tmp_path):
    """ACH review H1, reproduction 1: an R11 on an earlier debit revokes the mandate; the later one must not go."""
    mandate = mandate_created(api_client, account)["mandateUuid"]
    first = debit(api_client, account, mandateUuid=mandate).json()["data"]["uuid"]
    assert run("originate", "--at", "2026-12-08T15:00:00Z")["transactions"] == 1
    later = _later_debit(api_client, account, mandate)
    path = tmp_path / "r11.ach"
    path.write_text(
        return_file_for([(Transaction.objects.get(uuid=first), "R11", {})], at=datetime(2026, 12, 9, 13, tzinfo=UTC))
    )

    assert run("import_returns", str(path), "--at", "2026-12-09T14:00:00Z")["returns"] == 1

    assert Mandate.objects.get(uuid=mandate).status == "revoked"
    record = api_client.get(f"/transactions/{later}").json()["data"]
    assert record["status"] == "Voided" and record["failureReason"].startswith("mandate revoked: return R11")
    _nothing_sent()


def test_a_held_debit_and_a_made_re_presentment_are_voided_and_a_scheduled_one_cancelled(api_client, company, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    held = Transaction.objects.get(uuid=_later_debit(api_client, account, mandate))
    TransactionHold.objects.create(company=company, transaction=held, hold_code="AMT", hold_reason="over hold limit")
    Transaction.objects.filter(pk=held.pk).update(status="HELD")  # as risk would have held it
    retry = _later_debit(api_client, account, mandate, amount=1200)
    Transaction.objects.filter(uuid=retry).update(retry_of=held, entry_description="RETRY PYMT")
    RetryPolicy.objects.create(company=company, enabled=True, schedule_type="after_banking_days", banking_days=2)
    attempt = RetryAttempt.objects.create(
        company=company,
        original=held,
        returned=Transaction.objects.get(uuid=retry),
        number=2,
        scheduled_for=datetime(2026, 12, 16).date(),
    )

    api_client.post(f"/mandates/{mandate}/revoke", {"reason": REASON}, format="json")

    _stopped(api_client, str(held.uuid))
    _stopped(api_client, retry)
    attempt.refresh_from_db()
    assert (attempt.state, attempt.reason) == ("cancelled", "mandate_revoked")
    assert run("release_holds", "--uuid", str(held.uuid))["released"] == 0
    _nothing_sent()


def _revoked_elsewhere(mandate_uuid: str) -> None:
    """A revocation that did not stop the debits (a path written before 2026-12-07, or a debit that slipped in)."""
    mandate_revoke(mandate=Mandate.objects.get(uuid=mandate_uuid), reason=REASON, by="test")


def test_originate_refuses_a_debit_whose_mandate_is_not_active_and_says_so(api_client, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    later = _later_debit(api_client, account, mandate)
    plain = debit(api_client, account, amount=1500, effectiveDate=LATER).json()["data"]["uuid"]
    _revoked_elsewhere(mandate)

    summary = run("originate", "--at", FRIDAY_BEFORE)

    assert summary["transactions"] == 1  # the debit under no mandate goes
    assert summary["refused"] == [{"uuid": later, "status": "Voided", "reason": f"mandate revoked: {REASON}"}]
    _stopped(api_client, later)
    assert Transaction.objects.get(uuid=plain).status == "Processing"
    sent = Path(summary["files"][0]).read_text()
    assert len(re.findall(r"^6", sent, re.M)) == 1


def test_release_holds_voids_a_held_debit_whose_mandate_is_not_active_and_says_so(api_client, company, account):
    mandate = mandate_created(api_client, account)["mandateUuid"]
    held = Transaction.objects.get(uuid=_later_debit(api_client, account, mandate))
    TransactionHold.objects.create(company=company, transaction=held, hold_code="AMT", hold_reason="over hold limit")
    Transaction.objects.filter(pk=held.pk).update(status="HELD")
    _revoked_elsewhere(mandate)

    summary = run("release_holds", "--uuid", str(held.uuid))

    assert summary == {
        "released": 0,
        "notReleased": [{"uuid": str(held.uuid), "reason": f"voided instead: mandate revoked: {REASON}"}],
    }
    _stopped(api_client, str(held.uuid))
    _nothing_sent()


REVOKING_SERVICES = re.compile(r"\b(mandate_revoke|mandates_revoke_for_methods)\(")


def test_every_revoking_path_goes_through_the_service_that_stops_money():
    """The low-level writes of mandates.services are called only by transactions.charges.revocation, which voids
    the mandate's debits in the same transaction: a new revoking path cannot forget to."""
    root = Path(__file__).resolve().parents[2]
    callers = sorted(
        str(path.relative_to(root))
        for folder in ("accounts", "backoffice", "bank", "config", "mandates", "schedules", "transactions", "payments")
        for path in (root / folder).rglob("*.py")
        if REVOKING_SERVICES.search(re.sub(r"def (mandate_revoke|mandates_revoke_for_methods)\(", "", path.read_text()))
    )
    assert callers == ["transactions/charges/revocation.py"]
