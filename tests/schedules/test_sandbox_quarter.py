"""A quarter in the sandbox, scripted as a merchant's developer would run it (issue 47): a monthly schedule under a
recurring mandate, driven by the sandbox clock (which runs run_schedules each morning); the second debit comes back
R01 and is retried; the payer then revokes the mandate, so the third date makes no debit and the schedule stops.
Reporting, the schedule, the events and the proof packet read it back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from events.models import Event
from tests.mandates.conftest import mandate_body
from tests.transactions.sandbox.conftest import (  # noqa: F401 (fixtures)
    advance,
    file_dirs,
    ok,
    sandbox_client,
    sandbox_company,
    sandbox_key,
    saved_account,
)

pytestmark = pytest.mark.django_db


def _schedule_rows(client, schedule: str) -> list[dict]:
    columns = "uuid,status,amount,returnCode,mandateUuid,scheduleUuid,effectiveDate"
    query = {"page": 0, "pageSize": 10, "columns": columns, "scheduleuuid": schedule, "sort": "id", "sortDir": "ASC"}
    return ok(client.get("/reporting/transactions", query))


def _advance_until(client, schedule: str, done, *, most: int = 40) -> list[dict]:
    for _ in range(most):
        rows = _schedule_rows(client, schedule)
        if done(rows):
            return rows
        advance(client, 1)
    raise AssertionError(f"not reached in {most} banking days: {rows}")


def test_a_quarter_of_a_monthly_schedule_with_an_r01_and_a_revocation(sandbox_client):  # noqa: F811
    client = sandbox_client
    customer, method = saved_account(client, "123456789")
    mandate = ok(client.post(f"/customers/{customer}/mandates", mandate_body(method), format="json"), 201)
    mandate = mandate["mandateUuid"]
    start = (timezone.now() + timedelta(days=3)).date()
    schedule = ok(
        client.post(
            "/schedules",
            {
                "customerUuid": customer,
                "paymentMethodUuid": method,
                "mandateUuid": mandate,
                "amount": 4900,
                "interval": "monthly",
                "dayOfMonth": min(start.day, 28),
                "startDate": start.isoformat(),
                "count": 3,
            },
            format="json",
        ),
        201,
    )
    uuid = schedule["uuid"]
    third_date = schedule["upcoming"][2]

    # Month 1 settles; month 2 goes out and the bank returns it R01.
    _advance_until(client, uuid, lambda rows: len(rows) == 1 and rows[0]["status"] == "Settled")
    rows = _advance_until(client, uuid, lambda rows: len(rows) == 2 and rows[1]["status"] in ("Processing", "Settled"))
    second = rows[1]["uuid"]
    ok(client.post(f"/sandbox/transactions/{second}/return", {"code": "R01"}, format="json"))
    retry = ok(client.post(f"/transactions/{second}/retry", {}, format="json"), 201)

    # The payer withdraws the authorization before the third date: no third debit, the schedule stops.
    ok(client.post(f"/mandates/{mandate}/revoke", {"reason": "payer cancelled"}, format="json"))
    stopped = _advance_until(client, uuid, lambda rows: ok(client.get(f"/schedules/{uuid}"))["status"] != "active")

    read = ok(client.get(f"/schedules/{uuid}"))
    assert (read["status"], read["debitsMade"]) == ("stopped", 2)
    assert "mandate revoked: payer cancelled" in read["statusReason"]
    assert [(row["status"], row["returnDetails"]["returnCode"]) for row in stopped] == [
        ("Settled", None),
        ("Returned", "R01"),
    ]
    assert {row["mandateUuid"] for row in stopped} == {mandate}
    assert {row["scheduleUuid"] for row in stopped} == {uuid}
    assert all(row["amount"] == 4900 for row in stopped)
    assert retry["uuid"] not in {row["uuid"] for row in stopped}
    advance(client, 25)  # well past the third date
    assert len(_schedule_rows(client, uuid)) == 2
    assert third_date not in {row["effectiveDate"] for row in _schedule_rows(client, uuid)}

    notices = Event.objects.filter(type="schedule.payment_upcoming", object_uuid=uuid)
    assert sorted(event.data["paymentDate"] for event in notices)[:2] == schedule["upcoming"][:2]
    assert Event.objects.filter(type="schedule.stopped", object_uuid=uuid).count() == 1
    assert Event.objects.filter(type="mandate.revoked", object_uuid=mandate).count() == 1
    proof = client.get(f"/mandates/{mandate}/proof")
    assert proof.status_code == 200 and proof.content.startswith(b"%PDF")
