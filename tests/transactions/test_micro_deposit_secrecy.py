"""Micro-deposit amounts are the payer's secret (CONTRACT 12; security review N1): no merchant-facing surface shows
them, and the merchant cannot guess them by starting validation after validation."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from events.models import Event
from tests.reporting.conftest import report
from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions.models import AccountValidation, Transaction

pytestmark = pytest.mark.django_db


def _url(method, suffix: str = "validate") -> str:
    return f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/{suffix}"


def _start(client, method, kind: str = "microdeposits"):
    return client.post(_url(method), {"method": kind}, format="json")


@pytest.fixture
def micro(api_client, saved_method) -> list[Transaction]:
    """A started micro-deposit validation's three entries, next to an ordinary charge of the same customer."""
    assert put_charge(api_client, saved_charge(saved_method.customer, saved_method, amount=4321)).status_code == 201
    assert _start(api_client, saved_method).status_code == 202
    return list(Transaction.objects.filter(account_validation__isnull=False).order_by("pk"))


def test_the_transaction_record_shows_no_amount(api_client, micro):
    for entry in micro:
        data = api_client.get(f"/transactions/{entry.uuid}").json()["data"]
        assert data["amount"] is None
        assert (data["entryDescription"], data["type"]) == ("ACCTVERIFY", entry.type)


def test_events_and_webhook_bodies_show_no_amount(api_client, micro):
    uuids = {str(entry.uuid) for entry in micro}
    listed = [event for event in api_client.get("/events").json()["data"] if event["objectUuid"] in uuids]
    assert listed and all(event["data"]["amount"] is None for event in listed)
    # What a webhook delivers is the stored event's body.
    stored = Event.objects.filter(object_uuid__in=[entry.uuid for entry in micro])
    assert stored.count() == 3 and all(event.data["amount"] is None for event in stored)


def test_reporting_leaves_micro_entries_out_and_counts_agree(api_client, micro):
    body = report(api_client, columns="amount,entryDescription").json()
    assert [row["amount"] for row in body["data"]] == [4321]
    pagination = body["meta"]["pagination"]
    assert (pagination["totalRows"], pagination["totalFilteredRows"]) == (1, 1)
    for amount in {entry.amount for entry in micro}:
        assert report(api_client, amount=str(amount)).json()["data"] == []
    assert report(api_client, entrydescription="ACCTVERIFY").json()["meta"]["pagination"]["totalFilteredRows"] == 0
    response = report(api_client, format="csv", page=None, pageSize=None, columns="amount")
    lines = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert [line[lines[0].index("amount")] for line in lines[1:]] == ["4321"]


@pytest.mark.parametrize("limit", [1, 10_000])
def test_filtered_counts_leave_micro_entries_out_at_the_cap_too(api_client, saved_method, micro, monkeypatch, limit):
    """PostgreSQL counts the matches micro-entries included and subtracts the micro-entries among them
    (reporting.page._Count.sql): with the cap at 1, one charge among three micro-entries is still exactly 1, and
    a second charge makes it a lower bound."""
    monkeypatch.setattr("reporting.page.FILTERED_COUNT_LIMIT", limit)

    def counted(**params) -> tuple[int, bool]:
        pagination = report(api_client, **params).json()["meta"]["pagination"]
        return pagination["totalFilteredRows"], pagination["totalFilteredRowsIsLowerBound"]

    assert counted(**{"amount:gt": "0"}) == counted(**{"amount:gt": "0", "count": "exact"}) == (1, False)
    for amount in {entry.amount for entry in micro}:
        assert counted(amount=str(amount)) == counted(amount=str(amount), count="exact") == (0, False)
    assert put_charge(api_client, saved_charge(saved_method.customer, saved_method, amount=1234)).status_code == 201
    assert counted(**{"amount:gt": "0"}) == ((1, True) if limit == 1 else (2, False))
    assert counted(**{"amount:gt": "0", "count": "exact"}) == (2, False)


def test_is_duplicate_does_not_answer_for_a_micro_deposit(api_client, saved_method, micro):
    details = bank_details(accountNumber=saved_method.account_number, routingNumber=saved_method.routing_number)
    # The two credits may be the same amount; a second charge of it would rightly be a duplicate of the first.
    for type_, amount in sorted({(entry.type, entry.amount) for entry in micro}):
        body = {"method": "ACH", "type": type_, "amount": amount, "paymentDetails": details}
        if type_ == "Credit":
            body["standardEntryClassCode"] = "PPD"
        assert put_charge(api_client, body).json()["data"]["isDuplicate"] is False


def test_a_micro_entry_cannot_be_reversed(api_client, micro):
    response = api_client.post(f"/transactions/{micro[0].uuid}/reverse", {"reason": "duplicate"}, format="json")
    assert response.status_code == 404


def test_micro_deposits_start_at_most_twice_per_30_days(api_client, saved_method, micro):
    def fail_it():
        # The amounts are random: answer a pair that is surely not this validation's (98 and 99 once were).
        validation = AccountValidation.objects.latest("pk")
        sent = sorted(validation.entries.filter(type="Credit").values_list("amount", flat=True))
        wrong = [1, 2] if sent != [1, 2] else [3, 4]
        for _ in range(3):
            api_client.post(_url(saved_method, "validate/confirm"), {"amounts": wrong}, format="json")
        assert AccountValidation.objects.latest("pk").state == "failed"

    fail_it()
    assert _start(api_client, saved_method).status_code == 202  # the second in 30 days
    fail_it()

    third = _start(api_client, saved_method)

    assert third.status_code == 409
    assert third.json()["errors"][0]["code"] == "validation_attempts_exhausted"
    assert AccountValidation.objects.filter(kind="microdeposits").count() == 2
    # A prenote is still possible; and 30 days after the first start, micro-deposits again.
    assert _start(api_client, saved_method, "prenote").status_code == 202
    AccountValidation.objects.filter(kind="prenote").update(state="failed")
    first = AccountValidation.objects.filter(kind="microdeposits").earliest("pk")
    first.created_at -= timedelta(days=30, seconds=1)
    first.save(update_fields=["created_at"])
    assert _start(api_client, saved_method).status_code == 202
