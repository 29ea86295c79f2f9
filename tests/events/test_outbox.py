"""Events are written with the change they report: every call site, sequences per object, rollback."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

import pytest
from django.db import transaction
from standardwebhooks import Webhook

from events.delivery import deliveries_run
from events.models import Event
from events.outbox import EventDraft, event_record, events_record
from tests import factories
from tests.transactions.ach.conftest import MONDAY, MONDAY_MORNING, MONDAY_SETTLED, run
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for
from transactions.state import Actor, Caller

pytestmark = pytest.mark.django_db


def _types(object_uuid) -> list[str]:
    return list(Event.objects.filter(object_uuid=object_uuid).order_by("sequence").values_list("type", flat=True))


def _sequences(object_uuid) -> list[int]:
    return list(Event.objects.filter(object_uuid=object_uuid).order_by("id").values_list("sequence", flat=True))


def test_sequences_increase_by_one_per_object(company):
    first, second = factories.CustomerFactory(company=company), factories.CustomerFactory(company=company)
    for _ in range(3):
        event_record(company_id=company.pk, type="customer.updated", object_uuid=first.uuid, data={})
    event_record(company_id=company.pk, type="customer.updated", object_uuid=second.uuid, data={})
    events_record(
        [
            EventDraft(company.pk, "customer.updated", first.uuid, {}),
            EventDraft(company.pk, "customer.updated", second.uuid, {}),
        ]
        + [EventDraft(company.pk, "customer.updated", first.uuid, {})]
    )
    assert _sequences(first.uuid) == [1, 2, 3, 4, 5]
    assert _sequences(second.uuid) == [1, 2]


def test_the_database_refuses_a_repeated_sequence(company):
    from django.db import IntegrityError

    event = event_record(company_id=company.pk, type="customer.updated", object_uuid=company.uuid, data={})
    with pytest.raises(IntegrityError), transaction.atomic():
        Event.objects.create(
            company=company, type="customer.updated", object_uuid=event.object_uuid, sequence=event.sequence, data={}
        )


def test_a_charge_that_rolls_back_emits_nothing(api_client, company, endpoint, receiver):
    customer = factories.CustomerFactory(company=company)
    method = factories.PaymentMethodFactory(customer=customer)
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1500,
        "customerUuid": str(customer.uuid),
        "paymentMethodUuid": str(method.uuid),
    }
    from transactions.charges.services import ChargeRequest, transaction_charge

    with pytest.raises(RuntimeError), transaction.atomic():
        transaction_charge(
            ChargeRequest(
                company=company,
                method="ACH",
                type="Debit",
                amount=1500,
                customer_uuid=customer.uuid,
                payment_method_uuid=method.uuid,
                actor=Actor.command("test"),
                now=datetime.now(UTC),
            )
        )
        assert Event.objects.filter(type="transaction.created").count() == 1  # written inside the transaction
        raise RuntimeError("the caller's transaction fails after the charge")
    assert not Transaction.objects.exists()
    assert not Event.objects.exists()
    assert deliveries_run() == 0 and receiver.received == []

    # A charge refused by validation leaves nothing either.
    response = api_client.put("/transactions", {**body, "amount": -1}, format="json")
    assert response.status_code == 400
    assert not Event.objects.exists()


def test_customer_events_carry_the_customer_as_its_get_route_shows_it(api_client, company):
    created = api_client.post("/customers", {"firstName": "Ada", "lastName": "Lovelace"}, format="json").json()["data"]
    uuid = created["customerUuid"]
    api_client.patch(f"/customers/{uuid}", {"email": "ada@example.com"}, format="json")
    api_client.patch(f"/customers/{uuid}", {"email": "ada@example.com"}, format="json")  # no change: no event
    api_client.patch(f"/customers/{uuid}", {"status": "inactive"}, format="json")

    assert _types(uuid) == ["customer.created", "customer.updated", "customer.deactivated"]
    last = Event.objects.filter(object_uuid=uuid).order_by("-sequence").first()
    assert last.data == api_client.get(f"/customers/{uuid}").json()["data"]


def test_payment_method_events_are_masked(api_client, company):
    customer = api_client.post("/customers", {"firstName": "Ada", "lastName": "L"}, format="json").json()["data"]
    body = {
        "customerUuid": customer["customerUuid"],
        "type": "bank",
        "accountType": "Checking",
        "routingNumber": "021000021",
    }
    first = api_client.post("/customers/payment-methods", {**body, "accountNumber": "000111222333"}, format="json")
    second = api_client.post("/customers/payment-methods", {**body, "accountNumber": "000444555666"}, format="json")
    first_uuid, second_uuid = first.json()["data"]["paymentMethodUuid"], second.json()["data"]["paymentMethodUuid"]
    base = f"/customers/{customer['customerUuid']}/payment-methods"
    api_client.post(f"{base}/{second_uuid}/set-default")
    api_client.delete(f"{base}/{second_uuid}")

    assert _types(first_uuid) == ["payment_method.created", "payment_method.updated", "payment_method.updated"]
    assert _types(second_uuid) == ["payment_method.created", "payment_method.updated", "payment_method.deleted"]
    for event in Event.objects.filter(type__startswith="payment_method."):
        assert event.data["accountNumber"].startswith("****")
        assert "000111222333" not in str(event.data) and "000444555666" not in str(event.data)
    shown = api_client.get(f"{base}/{first_uuid}").json()["data"]
    latest = Event.objects.filter(object_uuid=first_uuid).order_by("-sequence").first().data
    assert latest == {**shown, "accountNumber": "****2333"}


def test_the_whole_life_of_a_charge_reaches_the_receiver_signed(
    monday_early, api_client, company, endpoint, receiver, tmp_path
):
    customer = api_client.post("/customers", {"firstName": "Ada", "lastName": "L"}, format="json").json()["data"]
    method = api_client.post(
        "/customers/payment-methods",
        {
            "customerUuid": customer["customerUuid"],
            "type": "bank",
            "accountType": "Checking",
            "accountNumber": "000123456789",
            "routingNumber": "021000021",
        },
        format="json",
    ).json()["data"]
    charge = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1500,
        "effectiveDate": MONDAY.isoformat(),
        "isSameDay": True,  # settles the evening of the Monday it goes out
        # SPEC 4.7 rule 2: structurally valid details even on a saved method; the stored ones replace them.
        "paymentDetails": {
            "name": "Ada L",
            "accountType": "Checking",
            "accountNumber": "999999999",
            "routingNumber": "021000021",
        },
        "customerUuid": customer["customerUuid"],
        "paymentMethodUuid": method["paymentMethodUuid"],
    }
    returned_uuid = api_client.put("/transactions", charge, format="json").json()["data"]["uuid"]
    settled_uuid = api_client.put("/transactions", charge, format="json").json()["data"]["uuid"]

    run("originate", "--at", MONDAY_MORNING)
    returned, noticed = Transaction.objects.get(uuid=returned_uuid), Transaction.objects.get(uuid=settled_uuid)
    path = tmp_path / "returns.ach"
    path.write_text(
        return_file_for(
            [(returned, "R01", {}), (noticed, "C01", {"accountNumber": "000987654321"})],
            at=datetime(2026, 12, 7, 18, tzinfo=UTC),
        )
    )
    run("import_returns", str(path), "--at", "2026-12-07T19:00:00Z")
    run("settle", "--at", MONDAY_SETTLED)

    deliveries_run()

    delivered = [Webhook(endpoint.secret).verify(r.body, r.headers) for r in receiver.received]
    by_object: dict[str, list[tuple[int, str]]] = {}
    for body in delivered:
        by_object.setdefault(body["objectUuid"], []).append((body["sequence"], body["type"]))
    assert sorted(by_object[returned_uuid]) == [
        (1, "transaction.created"),
        (2, "transaction.processing"),
        (3, "transaction.returned"),
    ]
    assert sorted(by_object[settled_uuid]) == [
        (1, "transaction.created"),
        (2, "transaction.processing"),
        (3, "transaction.settled"),
    ]
    assert sorted(by_object[method["paymentMethodUuid"]]) == [
        (1, "payment_method.created"),
        (2, "payment_method.updated"),
    ]
    corrected = next(b for b in delivered if b["type"] == "payment_method.updated")["data"]
    assert corrected["accountNumber"] == "****4321" and corrected["lastFourDigits"] == "4321"
    settled = next(b for b in delivered if b["type"] == "transaction.settled")["data"]
    assert settled == api_client.get(f"/transactions/{settled_uuid}").json()["data"]
    assert settled["paymentDetails"]["accountNumber"] == "****6789"
    assert all("000123456789" not in r.body.decode() for r in receiver.received)


def test_a_late_return_a_hold_release_and_a_reversal_emit_their_events(company, tmp_path):
    from transactions.ach.holds import holds_release
    from transactions.charges.reversal import transaction_reverse

    late = factories.TransactionFactory(company=company, effective_date=MONDAY, is_same_day=True)
    run("originate", "--at", MONDAY_MORNING)
    run("settle", "--at", MONDAY_SETTLED)
    late.refresh_from_db()
    path = tmp_path / "late.ach"
    path.write_text(return_file_for([(late, "R01", {})], at=datetime(2026, 12, 8, 13, tzinfo=UTC)))
    run("import_returns", str(path), "--at", "2026-12-08T14:00:00Z")
    assert _types(late.uuid) == ["transaction.processing", "transaction.settled", "transaction.late_returned"]

    company.refresh_from_db()  # cutoff_time read back as a time
    reversible = factories.TransactionFactory(company=company, status="Settled")
    credit = transaction_reverse(
        company=company,
        transaction_uuid=reversible.uuid,
        reason="duplicate",
        actor=Actor(Caller.API, "test"),
        at=datetime.now(UTC),
    )
    assert _types(reversible.uuid) == ["transaction.reversed"]
    assert _types(credit.uuid) == ["transaction.created"]

    held = factories.TransactionFactory(company=company, status="HELD")
    holds_release(uuids=[held.uuid], at=datetime.now(UTC))
    assert _types(held.uuid) == ["transaction.released"]


def test_held_declined_and_voided_charges_emit_their_events(api_client, company):
    company.merchant_settings.hold_over, company.merchant_settings.decline_over = 1000, 5000
    company.merchant_settings.save()
    details = {
        "name": "Ada L",
        "accountType": "Checking",
        "accountNumber": "000123456789",
        "routingNumber": "021000021",
    }
    body = {"method": "ACH", "type": "Debit", "paymentDetails": details}
    held = api_client.put("/transactions", {**body, "amount": 2000}, format="json").json()["data"]
    declined = api_client.put("/transactions", {**body, "amount": 9000}, format="json").json()["data"]
    pending = api_client.put("/transactions", {**body, "amount": 500}, format="json").json()["data"]
    assert api_client.post(f"/transactions/{pending['uuid']}/void").status_code == 200

    assert _types(held["uuid"]) == ["transaction.created", "transaction.held"]
    assert _types(declined["uuid"]) == ["transaction.created", "transaction.declined"]
    assert _types(pending["uuid"]) == ["transaction.created", "transaction.voided"]
    held_event = Event.objects.get(type="transaction.held")
    assert held_event.data["holdCode"] == "AMT"


def test_a_released_rtp_hold_reports_the_release_and_the_settlement(api_client, company):
    from transactions.ach.holds import holds_release

    company.merchant_settings.hold_over = 1000
    company.merchant_settings.save()
    details = {
        "name": "Ada L",
        "accountType": "Checking",
        "accountNumber": "000123456789",
        "routingNumber": "021000021",
    }
    held = api_client.put(
        "/transactions", {"method": "RTP", "type": "Debit", "amount": 2000, "paymentDetails": details}, format="json"
    ).json()["data"]
    assert held["status"] == "HELD"

    assert holds_release(uuids=[UUID(held["uuid"])], at=datetime.now(UTC)).released == [held["uuid"]]

    assert _types(held["uuid"]) == [
        "transaction.created",
        "transaction.held",
        "transaction.released",
        "transaction.settled",
    ]
    settled = Event.objects.get(object_uuid=held["uuid"], type="transaction.settled")
    assert settled.data == api_client.get(f"/transactions/{held['uuid']}").json()["data"]
