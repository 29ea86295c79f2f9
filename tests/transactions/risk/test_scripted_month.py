"""A month of charges and returns through the real commands (API charges, `originate`, `settle`, `import_returns`
with a generated NACHA return file): the rates cross the warning level and then a threshold, the alerts and
events are written, and the next debit is HELD with holdCode RTN."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from events.models import Event
from tests import factories
from tests.transactions.ach.conftest import run
from transactions.models import DebitHold, RiskAction, RiskAlert, Transaction
from transactions.sandbox.bank_files import return_file_for

pytestmark = pytest.mark.django_db

DETAILS = {"name": "x", "accountType": "Checking", "accountNumber": "1111", "routingNumber": "021000021"}


def iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Month:
    """Charges through the API, then one week's origination, settlement and returns as operators run them."""

    def __init__(self, client, company, tmp_path):
        self.client, self.company, self.tmp_path = client, company, tmp_path
        # A month of a few dozen debits: the program at work below the default volume floor of 200.
        type(company.merchant_settings).objects.filter(pk=company.pk).update(return_rate_minimum_debits=0)
        company.merchant_settings.refresh_from_db()
        self.customers = []
        self.clock = timezone.now()

    def charge(self, customer) -> dict:
        method = customer.payment_methods.first()
        body = {
            "method": "ACH",
            "type": "Debit",
            "amount": 2000,
            "customerUuid": str(customer.uuid),
            "paymentMethodUuid": str(method.uuid),
            "paymentDetails": DETAILS,
        }
        response = self.client.put("/transactions", body, format="json")
        assert response.status_code == 201, response.content
        return response.json()["data"]

    def week(self, charges: int, codes: list[str]) -> dict:
        """`charges` debits go out and settle; then the newest settled entries come back with `codes` (trace
        numbers start again each day and a return matches the newest entry with its trace number)."""
        for _ in range(charges):
            customer = factories.CustomerFactory(company=self.company)
            factories.PaymentMethodFactory(customer=customer)
            self.customers.append(customer)
            self.charge(customer)
        if charges:
            assert run("originate", "--at", iso(self.clock))["transactions"] == charges
            processing = Transaction.objects.filter(status="Processing")
            due = max(processing.values_list("expected_to_settle_at", flat=True))
            run("settle", "--at", iso(due + timedelta(seconds=1)))
            self.clock = due + timedelta(hours=12)
        summary = {"returns": 0}
        if codes:
            self.returned = self.settled()[-len(codes) :]
            returns = list(zip(self.returned, codes, strict=True))
            path = self.tmp_path / f"returns-{self.clock:%Y%m%d%H%M}.ach"
            path.write_text(return_file_for([(txn, code, {}) for txn, code in returns], at=self.clock))
            summary = run("import_returns", str(path), "--at", iso(self.clock))
        self.clock += timedelta(days=7)
        return summary

    def settled(self) -> list[Transaction]:
        return list(Transaction.objects.filter(company=self.company, status="Settled").order_by("pk"))


@pytest.mark.usefixtures("ordinary_banking_day")
def test_a_month_of_returns_warns_then_breaches_and_holds_the_next_debit(api_client, company, tmp_path):
    month = Month(api_client, company, tmp_path)

    month.week(5, [])
    month.week(5, ["R01"])  # overall 1/10 = 10%: under the warning level (80% of 15%)
    assert not RiskAlert.objects.exists()

    month.week(5, ["R01"])  # overall 2/15 = 13.3%: at least 12%, a warning
    (warning,) = RiskAlert.objects.all()
    assert (warning.category, warning.level, warning.returns, warning.debits) == ("overall", "warning", 2, 15)
    assert not DebitHold.objects.exists()

    summary = month.week(5, ["R10"])  # unauthorized 1/20 = 5% > 0.5%; overall 3/20 stays a warning
    assert summary["returns"] == 1

    breached = RiskAlert.objects.get(level="breached")
    assert (breached.category, breached.returns, breached.debits, breached.rate) == ("unauthorized", 1, 20, 1 / 20)
    assert RiskAlert.objects.count() == 2
    company_hold = DebitHold.objects.get(customer=None)
    assert company_hold.alert == breached and company_hold.lifted_at is None
    events = list(Event.objects.filter(company=company, type__startswith="risk.").order_by("pk"))
    assert [(event.type, event.object_uuid) for event in events] == [
        ("risk.threshold_warning", warning.uuid),
        ("risk.threshold_breached", breached.uuid),
    ]
    assert events[1].data["category"] == "unauthorized" and events[1].data["debitsHeld"] is True

    # R10's default policy: the method is blocked and that customer's new debits are held as well.
    unauthorized = Transaction.objects.select_related("payment_method").get(pk=month.returned[0].pk)
    assert unauthorized.return_entry.return_code == "R10"
    assert unauthorized.payment_method.blocked_at is not None
    assert DebitHold.objects.filter(customer=unauthorized.customer, lifted_at=None).exists()
    assert set(RiskAction.objects.values_list("action", flat=True)) == {
        "block_method",
        "block_account",
        "hold_customer_debits",
        "hold_company_debits",
    }

    # The next debit of any customer of the company is HELD with holdCode RTN.
    record = month.charge(month.customers[0])
    assert record["status"] == "HELD"
    assert record["holdCode"] == "RTN"
    assert "unauthorized return rate 1/20" in record["holdReason"]

    # The rates API says the same for the day of the last import.
    rates = api_client.get("/risk/return-rates", {"asOf": breached.as_of.isoformat()}).json()["data"]
    assert (rates["debits"], rates["unauthorized"]["returns"], rates["overall"]["returns"]) == (20, 1, 3)


@pytest.mark.usefixtures("ordinary_banking_day")
def test_a_company_whose_policy_does_not_hold_gets_the_alert_but_not_the_hold(api_client, company, tmp_path):
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    month = Month(api_client, company, tmp_path)
    month.week(4, [])

    month.week(0, ["R02"])  # administrative 1/4 = 25% > 3%; overall 25% > 15%

    assert set(RiskAlert.objects.values_list("category", "level")) == {
        ("administrative", "breached"),
        ("overall", "breached"),
    }
    assert not DebitHold.objects.filter(customer=None).exists()
    assert month.charge(month.customers[1])["status"] == "Pending"
