"""Schedules (CONTRACT 14): the resource and its routes, and `run_schedules`, which announces each date 10 days
ahead, makes its debit once within 2 banking days of it (also when two runs go at once, on PostgreSQL threads), and
stops a schedule whose mandate was revoked or whose method was blocked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from events.models import Event
from schedules.models import Schedule, ScheduledDebit
from schedules.services import schedules_run
from tests import factories
from tests.concurrency import at_once
from tests.mandates.conftest import mandate_created
from tests.mandates.test_charges import debit
from tests.transactions.ach.conftest import run
from tests.transactions.charges.test_automatic_retries import policy_on, returned_through_a_file
from transactions.models import RetryAttempt, Transaction
from transactions.risk.policies import company_debit_hold_place

pytestmark = pytest.mark.django_db

# Monthly on the 1st from Saturday 2031-02-01: Mon 02-03, Mon 03-03, Tue 04-01, Thu 05-01, Mon 06-02, ...
FIRST, SECOND = "2031-02-03", "2031-03-03"
NOW = datetime(2031, 1, 29, 15, tzinfo=UTC)


def at(day: str) -> str:
    return f"{day}T15:00:00Z"  # 10:00 Eastern


@pytest.fixture
def mandate(api_client, account) -> str:
    """A recurring mandate that allows weekly debits, so schedules of every interval may go under it."""
    return mandate_created(api_client, account, terms={"maxAmount": 5000, "frequency": "weekly"})["mandateUuid"]


def schedule_body(account, mandate: str, **overrides) -> dict:
    body = {
        "customerUuid": str(account.customer.uuid),
        "paymentMethodUuid": str(account.uuid),
        "mandateUuid": mandate,
        "amount": 4900,
        "interval": "monthly",
        "dayOfMonth": 1,
        "startDate": "2031-02-01",
        "count": 3,
    }
    body.update(overrides)
    return {name: value for name, value in body.items() if value is not ...}


def schedule_created(client, account, mandate, **overrides) -> dict:
    response = client.post("/schedules", schedule_body(account, mandate, **overrides), format="json")
    assert response.status_code == 201, response.content
    return response.json()["data"]


def test_a_schedule_shows_its_next_dates_rolled_to_banking_days(api_client, account, mandate):
    data = schedule_created(api_client, account, mandate, count=...)
    assert data["status"] == "active"
    assert data["upcoming"][:6] == [FIRST, SECOND, "2031-04-01", "2031-05-01", "2031-06-02", "2031-07-01"]
    assert len(data["upcoming"]) == 12
    assert api_client.get(f"/schedules/{data['uuid']}").json()["data"] == data
    weekly = schedule_created(api_client, account, mandate, interval="weekly", dayOfMonth=..., startDate="2031-01-01")
    assert weekly["upcoming"][:3] == ["2031-01-02", "2031-01-08", "2031-01-15"]  # New Year's Day rolls


@pytest.mark.parametrize(
    ("overrides", "status", "field"),
    [
        ({"startDate": "2020-01-01"}, 400, "startDate"),
        ({"startDate": "01/02/2031"}, 400, "startDate"),
        ({"endDate": "2031-12-31"}, 400, "count"),  # both endDate and count
        ({"count": ..., "endDate": "2031-01-01"}, 400, "endDate"),
        ({"interval": "weekly"}, 400, "dayOfMonth"),
        ({"interval": "daily"}, 400, "interval"),
        ({"dayOfMonth": 32}, 400, "dayOfMonth"),
        ({"amount": 0}, 400, "amount"),
        ({"amount": "49"}, 400, "amount"),
        ({"count": 0}, 400, "count"),
        ({"amount": 5001}, 409, "amount"),  # above the mandate's maxAmount
        ({"mandateUuid": "nope"}, 400, "mandateUuid"),
        ({"mandateUuid": "2b9f4c1e-7d6a-4e8b-b1c2-3d4e5f6a7b8c"}, 404, "mandateUuid"),
        ({"extra": 1}, 400, "extra"),
    ],
)
def test_bad_input_names_the_field_and_writes_nothing(api_client, account, mandate, overrides, status, field):
    response = api_client.post("/schedules", schedule_body(account, mandate, **overrides), format="json")
    assert response.status_code == status, response.content
    assert response.json()["errors"][0]["field"] == field
    assert not Schedule.objects.exists()


def test_a_schedule_needs_an_active_recurring_mandate_of_that_method(api_client, account):
    single = mandate_created(api_client, account, type="single")["mandateUuid"]
    response = api_client.post("/schedules", schedule_body(account, single), format="json")
    assert (response.status_code, response.json()["errors"][0]["code"]) == (409, "outside_mandate_terms")
    revoked = mandate_created(api_client, account)["mandateUuid"]
    api_client.post(f"/mandates/{revoked}/revoke", {"reason": "payer asked"}, format="json")
    response = api_client.post("/schedules", schedule_body(account, revoked), format="json")
    assert (response.status_code, response.json()["errors"][0]["code"]) == (409, "mandate_not_active")
    other = factories.PaymentMethodFactory(customer=account.customer, account_number="000999888777")
    response = api_client.post(
        "/schedules", {**schedule_body(account, revoked), "paymentMethodUuid": str(other.uuid)}, format="json"
    )
    assert response.status_code == 409
    assert not Schedule.objects.exists()


def test_run_schedules_announces_ten_days_ahead_and_debits_two_banking_days_ahead_once(api_client, account, mandate):
    schedule = schedule_created(api_client, account, mandate)

    assert run("run_schedules", "--at", at("2031-01-23"))["notices"] == 0
    assert run("run_schedules", "--at", at("2031-01-24"))["notices"] == 1  # 10 days before Mon 02-03
    assert run("run_schedules", "--at", at("2031-01-29"))["debits"] == 0  # Wed: 02-03 is 3 banking days off
    made = run("run_schedules", "--at", at("2031-01-30"))
    again = run("run_schedules", "--at", at("2031-01-31"))

    assert (made["debits"], again["debits"]) == (1, 0)
    debit = ScheduledDebit.objects.get()
    assert (debit.date.isoformat(), str(debit.schedule.uuid)) == (FIRST, schedule["uuid"])
    txn = debit.transaction
    assert (txn.status, txn.amount, txn.effective_date.isoformat(), str(txn.mandate.uuid)) == (
        "Pending",
        4900,
        FIRST,
        mandate,
    )
    notice = Event.objects.get(type="schedule.payment_upcoming")
    assert (notice.data["paymentDate"], notice.data["amount"]) == (FIRST, 4900)
    assert api_client.get(f"/schedules/{schedule['uuid']}").json()["data"]["upcoming"][0] == SECOND


def test_a_schedules_debit_shows_its_schedule_and_mandate(api_client, account, mandate):
    schedule = schedule_created(api_client, account, mandate)
    run("run_schedules", "--at", at("2031-01-30"))
    txn = ScheduledDebit.objects.get().transaction
    by_hand = debit(api_client, account, mandateUuid=mandate)
    assert by_hand.status_code == 201, by_hand.content

    shown = api_client.get(f"/transactions/{txn.uuid}").json()["data"]
    unscheduled = api_client.get(f"/transactions/{by_hand.json()['data']['uuid']}").json()["data"]

    assert (shown["scheduleUuid"], shown["mandateUuid"]) == (schedule["uuid"], mandate)
    assert (unscheduled["scheduleUuid"], unscheduled["mandateUuid"]) == (None, mandate)
    run("originate", "--at", at("2031-01-31"))  # its next events carry the link too
    (processing,) = Event.objects.filter(type="transaction.processing", object_uuid=txn.uuid)
    assert (processing.data["scheduleUuid"], processing.data["mandateUuid"]) == (schedule["uuid"], mandate)


def test_the_last_date_completes_the_schedule(api_client, account, mandate):
    schedule = schedule_created(api_client, account, mandate, count=2)
    run("run_schedules", "--at", at("2031-01-30"))
    finished = run("run_schedules", "--at", at("2031-02-27"))
    assert (finished["debits"], finished["completed"]) == (1, 1)
    data = api_client.get(f"/schedules/{schedule['uuid']}").json()["data"]
    assert (data["status"], data["debitsMade"], data["upcoming"]) == ("completed", 2, [])
    assert Event.objects.filter(type="schedule.completed", object_uuid=schedule["uuid"]).count() == 1
    assert run("run_schedules", "--at", at("2031-04-01"))["debits"] == 0


def test_a_revoked_mandate_stops_the_schedule(api_client, account, mandate):
    schedule = schedule_created(api_client, account, mandate)
    api_client.post(f"/mandates/{mandate}/revoke", {"reason": "payer called"}, format="json")

    summary = run("run_schedules", "--at", at("2031-01-30"))

    assert (summary["debits"], summary["stopped"]) == (0, 1)
    data = api_client.get(f"/schedules/{schedule['uuid']}").json()["data"]
    assert data["status"] == "stopped" and "payer called" in data["statusReason"]
    assert Event.objects.get(type="schedule.stopped").data["status"] == "stopped"
    assert not Transaction.objects.exists()


def test_a_blocked_method_stops_the_schedule(api_client, account, mandate):
    schedule = schedule_created(api_client, account, mandate)
    account.blocked_at, account.blocked_reason = timezone.now(), "R02 Account Closed"
    account.save(update_fields=["blocked_at", "blocked_reason"])

    assert run("run_schedules", "--at", at("2031-01-30"))["stopped"] == 1

    data = api_client.get(f"/schedules/{schedule['uuid']}").json()["data"]
    assert data["status"] == "stopped" and "R02" in data["statusReason"]
    assert not Transaction.objects.exists()


def test_pause_skips_its_dates_resume_goes_on_cancel_ends(api_client, account, mandate):
    uuid = schedule_created(api_client, account, mandate, count=...)["uuid"]
    assert api_client.post(f"/schedules/{uuid}/pause").json()["data"]["status"] == "paused"
    assert run("run_schedules", "--at", at("2031-01-30"))["debits"] == 0
    resumed = api_client.post(f"/schedules/{uuid}/resume")
    assert resumed.json()["data"]["status"] == "active"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(timezone, "now", lambda: datetime(2031, 2, 20, 15, tzinfo=UTC))
        api_client.post(f"/schedules/{uuid}/pause")
        api_client.post(f"/schedules/{uuid}/resume")  # 02-03 has passed: skipped
    assert run("run_schedules", "--at", at("2031-02-27"))["debits"] == 1
    assert [d.date.isoformat() for d in ScheduledDebit.objects.all()] == [SECOND]
    assert api_client.post(f"/schedules/{uuid}/cancel").json()["data"]["status"] == "cancelled"
    refused = api_client.post(f"/schedules/{uuid}/resume")
    assert (refused.status_code, refused.json()["errors"][0]["code"]) == (409, "schedule_not_active")
    assert run("run_schedules", "--at", at("2031-03-28"))["debits"] == 0


def test_list_filters_and_denials(api_client, other_api_client, company, account, mandate):
    uuid = schedule_created(api_client, account, mandate)["uuid"]
    listed = api_client.get("/schedules", {"status": "active", "customerUuid": str(account.customer.uuid)}).json()
    assert [row["uuid"] for row in listed["data"]] == [uuid]
    assert api_client.get("/schedules", {"status": "stopped"}).json()["data"] == []
    assert api_client.get("/schedules", {"status": "nope"}).status_code == 400
    assert other_api_client.get(f"/schedules/{uuid}").status_code == 404
    assert other_api_client.post(f"/schedules/{uuid}/pause").status_code == 404
    assert other_api_client.get("/schedules").json()["data"] == []
    assert APIClient().get("/schedules").status_code == 401
    scoped = factories.issue_api_key(company, actions=["ViewMandates"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=scoped.authorization)
    assert client.get("/schedules").status_code == 403


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_make_each_debit_once(company, issued_key, account):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=issued_key.authorization)
    mandate = mandate_created(client, account)["mandateUuid"]
    for start in ("2031-02-01", "2031-02-02"):
        schedule_created(client, account, mandate, startDate=start, dayOfMonth=...)

    summaries = at_once(lambda: schedules_run(at=datetime(2031, 1, 30, 15, tzinfo=UTC)), 4)

    assert sum(summary.debits for summary in summaries) == 2
    assert ScheduledDebit.objects.count() == Transaction.objects.count() == 2
    assert sum(summary.notices for summary in summaries) == 2
    assert Event.objects.filter(type="schedule.payment_upcoming").count() == 2


def test_retry_policy_none_is_kept_on_the_schedule_and_a_bad_value_names_the_field(api_client, account, mandate):
    response = api_client.post("/schedules", schedule_body(account, mandate, retryPolicy="always"), format="json")
    assert (response.status_code, response.json()["errors"][0]["field"]) == (400, "retryPolicy")
    assert not Schedule.objects.exists()

    opted_out = schedule_created(api_client, account, mandate, retryPolicy="none")
    assert api_client.get(f"/schedules/{opted_out['uuid']}").json()["data"]["retryPolicy"] == "none"
    assert schedule_created(api_client, account, mandate)["retryPolicy"] is None


@pytest.mark.parametrize(("retry_policy", "attempts"), [("none", 0), (..., 1)])
def test_a_schedule_that_opted_out_gets_no_retry_of_its_r01(
    api_client, account, mandate, tmp_path, retry_policy, attempts
):
    policy_on(account.company)
    schedule_created(api_client, account, mandate, retryPolicy=retry_policy)
    assert run("run_schedules", "--at", at("2031-01-30"))["debits"] == 1
    txn = ScheduledDebit.objects.get().transaction
    assert txn.retry_policy == (None if retry_policy is ... else retry_policy)
    run("originate", "--at", at("2031-02-02"))
    txn.refresh_from_db()

    returned_through_a_file(txn, "R01", datetime(2031, 2, 4, 15, tzinfo=UTC), tmp_path)

    assert RetryAttempt.objects.filter(original=txn).count() == attempts
    assert api_client.get(f"/transactions/{txn.uuid}").json()["data"]["retry"]["willAttemptRetry"] is bool(attempts)


def test_run_schedules_names_each_debit_it_made_held_and_why(
    ordinary_banking_day, api_client, account, mandate, company
):
    """Newcomer review 2026-12-07 O4: a run said `debits: 1` of a debit the company's debit hold made HELD."""
    schedule = schedule_created(api_client, account, mandate)
    company_debit_hold_place(company_id=company.pk, reason="overall return rate 3/4 is over the threshold", at=NOW)

    made = run("run_schedules", "--at", at("2031-01-30"))

    txn = ScheduledDebit.objects.get().transaction
    assert (made["debits"], txn.status) == (1, "HELD")
    assert made["held"] == [
        {
            "transaction": str(txn.uuid),
            "holdCode": "RTN",
            "holdReason": "overall return rate 3/4 is over the threshold",
            "schedule": schedule["uuid"],
            "date": FIRST,
        }
    ]
