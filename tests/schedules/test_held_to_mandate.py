"""CONTRACT 14 (2026-12-07): a schedule is held to its mandate and to the charging right. Making or resuming one needs
CreateTransaction as well as ManageSchedules (security M1); it may not debit more often than its mandate's frequency
(security M2) and its dates are at most 5 years ahead (security L4); its `purpose` goes on each debit (ACH M5); and
its installments are a recurring series, not re-initiations: an R01 does not stop it, and an installment is kept off
the day that return's re-presentment goes out (ACH M1)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rest_framework.test import APIClient

from schedules.models import Schedule, ScheduledDebit
from tests import factories
from tests.mandates.conftest import mandate_created
from tests.schedules.test_schedules import at, schedule_body, schedule_created
from tests.transactions.ach.conftest import run
from tests.transactions.charges.test_automatic_retries import policy_on, returned_through_a_file
from transactions.models import RetryAttempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("ordinary_banking_day")]


def _mandate(client, account, frequency: str | None = "weekly") -> str:
    terms = {"maxAmount": 5000, **({"frequency": frequency} if frequency else {})}
    return mandate_created(client, account, terms=terms)["mandateUuid"]


def _client_of(company, actions: list[str]) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, actions=actions).authorization)
    return client


def test_a_key_that_cannot_charge_cannot_make_or_resume_a_schedule(api_client, company, account):
    mandate = _mandate(api_client, account)
    schedules_only = _client_of(company, ["ManageSchedules"])
    both = _client_of(company, ["ManageSchedules", "CreateTransaction"])

    refused = schedules_only.post("/schedules", schedule_body(account, mandate, amount=4999), format="json")
    assert refused.status_code == 403
    assert not Schedule.objects.exists()

    uuid = schedule_created(both, account, mandate)["uuid"]
    assert schedules_only.post(f"/schedules/{uuid}/pause").status_code == 200  # stopping money needs no more
    assert schedules_only.post(f"/schedules/{uuid}/resume").status_code == 403
    assert both.post(f"/schedules/{uuid}/resume").json()["data"]["status"] == "active"


@pytest.mark.parametrize(
    ("frequency", "interval", "status"),
    [
        ("monthly", "weekly", 409),
        ("monthly", "biweekly", 409),
        ("biweekly", "weekly", 409),
        ("monthly", "monthly", 201),
        ("biweekly", "monthly", 201),
        ("weekly", "weekly", 201),
        ("irregular", "weekly", 201),  # an irregular mandate, or one without a frequency, fixes no interval
        (None, "weekly", 201),
    ],
)
def test_a_schedule_may_not_debit_more_often_than_its_mandate_allows(api_client, account, frequency, interval, status):
    mandate = _mandate(api_client, account, frequency)
    body = schedule_body(account, mandate, interval=interval, dayOfMonth=... if interval != "monthly" else 1)

    response = api_client.post("/schedules", body, format="json")

    assert response.status_code == status, response.content
    if status == 409:
        error = response.json()["errors"][0]
        assert (error["code"], error["field"]) == ("outside_mandate_terms", "interval")
        assert not Schedule.objects.exists()


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"startDate": "9999-12-27", "interval": "weekly", "dayOfMonth": ...}, "startDate"),
        ({"startDate": "9999-12-01"}, "startDate"),
        ({"startDate": "2031-12-09"}, "startDate"),  # five years and a day after 2026-12-08
        ({"count": ..., "endDate": "2032-01-01"}, "endDate"),
    ],
)
def test_dates_more_than_five_years_ahead_are_400_and_nothing_is_saved(api_client, account, overrides, field):
    mandate = _mandate(api_client, account)

    response = api_client.post("/schedules", schedule_body(account, mandate, **overrides), format="json")

    assert response.status_code == 400, response.content
    assert (response.json()["errors"][0]["code"], response.json()["errors"][0]["field"]) == ("out_of_range", field)
    assert not Schedule.objects.exists()
    assert api_client.get("/schedules").status_code == 200


def test_the_schedules_purpose_goes_on_each_debit(api_client, account):
    mandate = _mandate(api_client, account)
    created = schedule_created(api_client, account, mandate, purpose="goods")
    assert created["purpose"] == "goods"
    bad = api_client.post("/schedules", schedule_body(account, mandate, purpose="gifts"), format="json")
    assert (bad.status_code, bad.json()["errors"][0]["field"]) == (400, "purpose")

    assert run("run_schedules", "--at", at("2031-01-30"))["debits"] == 1

    txn = ScheduledDebit.objects.get().transaction
    assert (txn.standard_entry_class_code, txn.purpose, txn.entry_description) == ("WEB", "goods", "PURCHASE")


def test_an_r01_does_not_stop_the_schedule_and_an_installment_keeps_off_the_re_presentments_day(
    api_client, account, tmp_path
):
    policy_on(account.company, schedule_type="after_banking_days", banking_days=4)
    mandate = _mandate(api_client, account)
    uuid = schedule_created(
        api_client, account, mandate, interval="weekly", dayOfMonth=..., startDate="2031-02-03", count=3
    )["uuid"]
    assert run("run_schedules", "--at", at("2031-01-30"))["debits"] == 1
    first = ScheduledDebit.objects.get().transaction
    run("originate", "--at", at("2031-02-02"))
    first.refresh_from_db()
    returned_through_a_file(first, "R01", datetime(2031, 2, 4, 15, tzinfo=UTC), tmp_path)
    assert RetryAttempt.objects.get(original=first).scheduled_for.isoformat() == "2031-02-10"

    summary = run("run_schedules", "--at", at("2031-02-06"))

    assert (summary["debits"], summary["stopped"], summary["refused"]) == (1, 0, [])
    assert api_client.get(f"/schedules/{uuid}").json()["data"]["status"] == "active"
    second = ScheduledDebit.objects.get(date="2031-02-10").transaction
    assert second.status in ("Pending", "HELD")  # made (one return in one debit trips the return-rate hold)
    assert second.effective_date.isoformat() == "2031-02-11"  # the re-presentment has 02-10
