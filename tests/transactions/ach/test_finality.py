"""Finality (CONTRACT 15): return windows from CONTRACT 12's deadlines and the Fed calendar, fundsAvailableAt after the
company's hold, `mark_final` announcing funds_available and final once each, RTP final at settlement, a late return
after final still applied with `afterFinal: true`, and reporting's finality columns and filters."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import MONDAY_MORNING, MONDAY_SETTLED, run, saved_method_txn
from tests.transactions.charges.helpers import saved_charge_body
from transactions import calendar
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def method(company):
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    return factories.PaymentMethodFactory(
        customer=factories.CustomerFactory(company=company), account_number="000123456789", routing_number="021000021"
    )


def settled_monday(method, **overrides) -> Transaction:
    txn = saved_method_txn(method, finality="pending", **overrides)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    txn.refresh_from_db()
    assert txn.status == "Settled"
    return txn


def types_of(txn: Transaction) -> list[str]:
    return list(Event.objects.filter(object_uuid=txn.uuid).order_by("sequence").values_list("type", flat=True))


def test_a_debit_has_its_windows_and_funds_available_at_from_the_moment_it_settles(monday_early, api_client, method):
    """CONTRACT 15 (2026-12-07): no `mark_final` run between `settle` and the merchant's look, nor in the webhook."""
    txn = settled_monday(method)

    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    windows = {"administrativeUntil": "2026-12-09", "unauthorizedUntil": "2027-02-08"}
    assert (record["returnWindows"], record["fundsAvailableAt"][:19]) == (windows, "2026-12-09T22:00:00")
    settled = Event.objects.filter(object_uuid=txn.uuid, type="transaction.settled").get()
    assert (settled.data["returnWindows"], settled.data["fundsAvailableAt"][:19]) == (windows, "2026-12-09T22:00:00")
    assert run("mark_final", "--at", "2026-12-08T01:00:00Z") == {"stamped": 0, "fundsAvailable": 0, "final": 0}


def test_a_settled_debit_gets_its_windows_then_funds_available_then_final_each_once(api_client, method):
    txn = settled_monday(method)

    assert run("mark_final", "--at", "2026-12-08T01:00:00Z") == {"stamped": 0, "fundsAvailable": 0, "final": 0}
    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    # Settled Monday 2026-12-07: 2 banking days; the first banking day after the 60th calendar day (Fri 2027-02-05).
    assert record["returnWindows"] == {"administrativeUntil": "2026-12-09", "unauthorizedUntil": "2027-02-08"}
    assert record["fundsAvailableAt"].startswith("2026-12-09T22:00:00")  # 17:00 Eastern, 2 banking days on
    assert (record["finality"], record["finalAt"], record["afterFinal"]) == ("pending", None, False)

    assert run("mark_final", "--at", "2026-12-09T21:59:00Z")["fundsAvailable"] == 0
    assert run("mark_final", "--at", "2026-12-09T22:00:00Z")["fundsAvailable"] == 1
    assert run("mark_final", "--at", "2026-12-10T22:00:00Z")["fundsAvailable"] == 0
    assert api_client.get(f"/transactions/{txn.uuid}").json()["data"]["finality"] == "available"

    assert run("mark_final", "--at", "2027-02-09T04:59:00Z")["final"] == 0  # still Feb 8, Eastern
    assert run("mark_final", "--at", "2027-02-09T05:00:00Z")["final"] == 1
    assert run("mark_final", "--at", "2027-02-10T05:00:00Z")["final"] == 0
    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    assert (record["finality"], record["finalAt"][:19], record["status"]) == ("final", "2027-02-09T05:00:00", "Settled")
    assert types_of(txn).count("transaction.funds_available") == 1
    assert types_of(txn).count("transaction.final") == 1
    assert types_of(txn)[-2:] == ["transaction.funds_available", "transaction.final"]


def test_a_late_return_still_moves_a_final_debit_to_returned_and_says_after_final(api_client, method, tmp_path):
    txn = settled_monday(method)
    run("mark_final", "--at", "2027-02-09T05:00:00Z")
    path = tmp_path / "late.ach"
    at = datetime(2027, 2, 9, 15, tzinfo=UTC)
    path.write_text(return_file_for([(txn, "R10", {})], at=at))

    assert run("import_returns", str(path), "--at", at.isoformat())["returns"] == 1

    record = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    assert (record["status"], record["finality"], record["afterFinal"]) == ("Returned", "final", True)
    late = Event.objects.filter(object_uuid=txn.uuid, type="transaction.late_returned").get()
    assert late.data["afterFinal"] is True


def test_a_debit_returned_inside_its_window_is_never_available_or_final(method, tmp_path):
    txn = settled_monday(method)
    run("mark_final", "--at", "2026-12-08T01:00:00Z")
    path = tmp_path / "returns.ach"
    at = datetime(2026, 12, 8, 15, tzinfo=UTC)
    path.write_text(return_file_for([(txn, "R01", {})], at=at))
    run("import_returns", str(path), "--at", at.isoformat())

    assert run("mark_final", "--at", "2027-03-01T12:00:00Z") == {"stamped": 0, "fundsAvailable": 0, "final": 0}
    assert "transaction.final" not in types_of(txn) and "transaction.funds_available" not in types_of(txn)


def test_the_companys_funds_hold_moves_funds_available_at(api_client, method):
    method.company.merchant_settings.funds_hold_banking_days = 5
    method.company.merchant_settings.save(update_fields=["funds_hold_banking_days"])
    txn = settled_monday(method)

    run("mark_final", "--at", "2026-12-08T01:00:00Z")

    assert api_client.get(f"/transactions/{txn.uuid}").json()["data"]["fundsAvailableAt"].startswith("2026-12-14T22")


def test_a_ccd_debit_waits_the_sixty_days_too(api_client, company, method):
    organization = factories.CustomerFactory(company=company, first_name="", last_name="", company_name="Acme")
    business = factories.PaymentMethodFactory(customer=organization, account_number="55512345")
    txn = settled_monday(business, standard_entry_class_code="CCD")

    run("mark_final", "--at", "2026-12-08T01:00:00Z")

    assert api_client.get(f"/transactions/{txn.uuid}").json()["data"]["returnWindows"]["unauthorizedUntil"] == (
        "2027-02-08"
    )


def test_rtp_is_final_at_settlement(api_client, company):
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    body = saved_charge_body(method, method="RTP", type="Credit", amount=1200)
    created = api_client.put("/transactions", body, format="json").json()["data"]
    assert (created["status"], created["finality"], created["returnWindows"]) == ("Settled", "final", None)

    assert run("mark_final")["final"] == 1
    assert run("mark_final")["final"] == 0
    txn = Transaction.objects.get(uuid=created["uuid"])
    assert types_of(txn).count("transaction.final") == 1
    assert txn.final_at is not None


def test_a_pending_debit_has_no_windows_yet(api_client, method):
    body = saved_charge_body(method, method="ACH", type="Debit", amount=1200)
    created = api_client.put("/transactions", body, format="json").json()["data"]
    assert (created["finality"], created["returnWindows"], created["fundsAvailableAt"]) == ("pending", None, None)
    assert Transaction.objects.get(uuid=created["uuid"]).finality == "pending"


def test_reporting_has_finality_columns_and_filters(api_client, method):
    txn = settled_monday(method)
    other = saved_method_txn(method, amount=999, status="Voided")
    run("mark_final", "--at", "2027-02-09T05:00:00Z")

    def listed(query: str) -> list[dict]:
        response = api_client.get(
            f"/reporting/transactions?page=0&pageSize=10&columns=finality,fundsAvailableAt,finalAt{query}"
        )
        assert response.status_code == 200, response.content
        return response.json()["data"]

    (row,) = listed("&finality=final")
    assert (row["uuid"], row["finality"], row["finalAt"][:19]) == (str(txn.uuid), "final", "2027-02-09T05:00:00")
    assert row["fundsAvailableAt"].startswith("2026-12-09T22:00:00")
    assert [r["uuid"] for r in listed("&finalat:lt=2027-03-01T00:00:00Z")] == [str(txn.uuid)]
    assert str(other.uuid) in [r["uuid"] for r in listed("&finality:null=true")]
    bad = api_client.get("/reporting/transactions?page=0&pageSize=10&finalat:gt=yesterday")
    assert bad.status_code == 400


@pytest.mark.parametrize(
    ("settled_on", "administrative", "unauthorized"),
    [
        (date(2026, 12, 7), date(2026, 12, 9), date(2027, 2, 8)),
        (date(2026, 12, 23), date(2026, 12, 28), date(2027, 2, 22)),  # Christmas; Feb 21 is a Sunday, 15th holiday
        (date(2027, 3, 5), date(2027, 3, 9), date(2027, 5, 5)),  # May 4 (60th day) is a Tuesday: the day after
        (date(2027, 9, 3), date(2027, 9, 8), date(2027, 11, 3)),  # Labor Day inside the 2 banking days
        (date(2027, 11, 10), date(2027, 11, 15), date(2028, 1, 10)),  # Veterans Day (Thu); Jan 9 2028 a Sunday
    ],
)
def test_the_deadlines_follow_the_fed_calendar(settled_on, administrative, unauthorized):
    assert calendar.administrative_return_deadline(settled_on) == administrative
    assert calendar.unauthorized_return_deadline(settled_on) == unauthorized
