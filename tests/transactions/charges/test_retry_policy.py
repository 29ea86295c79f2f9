"""GET/PUT /settings/retry-policy (CONTRACT 15): the schedule types, their input checks, who may set it, and the
day each schedule gives the next presentment."""

from __future__ import annotations

from datetime import date

import pytest

from tests import factories
from tests.transactions.charges.helpers import saved_charge_body
from transactions.charges.retry_policy import next_attempt_date
from transactions.models import RetryPolicy, Transaction

pytestmark = pytest.mark.django_db
URL = "/settings/retry-policy"


def test_the_policy_is_off_until_set(api_client):
    response = api_client.get(URL)

    assert response.status_code == 200
    assert response.json()["data"] == {"enabled": False, "attempts": 2, "schedule": None}


@pytest.mark.parametrize(
    "schedule",
    [
        {"type": "after_banking_days", "days": 3},
        {"type": "weekday", "weekday": "friday"},
        {"type": "days_of_month", "days": [1, 15]},
        {"type": "last_banking_day_of_month"},
    ],
)
def test_each_schedule_type_is_stored_and_read_back(api_client, company, schedule):
    body = {"enabled": True, "attempts": 1, "schedule": schedule}

    response = api_client.put(URL, body, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["data"] == body
    assert api_client.get(URL).json()["data"] == body
    assert RetryPolicy.objects.get(company=company).schedule_type == schedule["type"]


def test_put_replaces_the_whole_policy(api_client, company):
    api_client.put(URL, {"enabled": True, "schedule": {"type": "weekday", "weekday": "monday"}}, format="json")
    body = {"enabled": False, "attempts": 2, "schedule": {"type": "after_banking_days", "days": 5}}

    assert api_client.put(URL, body, format="json").json()["data"] == body
    policy = RetryPolicy.objects.get(company=company)
    assert (policy.weekday, policy.banking_days, policy.enabled) == (None, 5, False)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"schedule": {"type": "last_banking_day_of_month"}}, "enabled"),
        ({"enabled": True}, "schedule"),
        ({"enabled": "yes", "schedule": {"type": "last_banking_day_of_month"}}, "enabled"),
        ({"enabled": True, "attempts": 3, "schedule": {"type": "last_banking_day_of_month"}}, "attempts"),
        ({"enabled": True, "attempts": 0, "schedule": {"type": "last_banking_day_of_month"}}, "attempts"),
        ({"enabled": True, "schedule": {"type": "fortnightly"}}, "schedule.type"),
        ({"enabled": True, "schedule": {"type": "after_banking_days"}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "after_banking_days", "days": 0}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "after_banking_days", "days": 31}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "after_banking_days", "days": "3"}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "weekday", "weekday": "saturday"}}, "schedule.weekday"),
        ({"enabled": True, "schedule": {"type": "weekday"}}, "schedule.weekday"),
        ({"enabled": True, "schedule": {"type": "weekday", "weekday": "friday", "days": 2}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "days_of_month", "days": []}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "days_of_month", "days": [0, 15]}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "days_of_month", "days": [32]}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "days_of_month", "days": [1, 1]}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "days_of_month", "days": [1, 2, 3, 4, 5]}}, "schedule.days"),
        ({"enabled": True, "schedule": {"type": "last_banking_day_of_month", "weekday": "friday"}}, "schedule.weekday"),
        ({"enabled": True, "schedule": {"type": "last_banking_day_of_month"}, "codes": ["R01"]}, "codes"),
        ({"enabled": True, "schedule": None}, "schedule"),
        ({"enabled": True, "schedule": "weekly"}, "schedule"),
    ],
)
def test_bad_input_is_400_naming_the_field_and_stores_nothing(api_client, company, body, field):
    response = api_client.put(URL, body, format="json")

    assert response.status_code == 400, response.content
    assert field in [error["field"] for error in response.json()["errors"]]
    assert not RetryPolicy.objects.filter(company=company).exists()


def test_without_credentials_401(anonymous_client):
    assert anonymous_client.get(URL).status_code == 401
    assert anonymous_client.put(URL, {}, format="json").status_code == 401


def test_put_needs_manage_risk_settings_and_get_view_reports(company):
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, actions=["ViewReports"]).authorization)
    body = {"enabled": True, "schedule": {"type": "last_banking_day_of_month"}}

    assert client.get(URL).status_code == 200
    assert client.put(URL, body, format="json").status_code == 403
    client.credentials(
        HTTP_AUTHORIZATION=factories.issue_api_key(company, actions=["ManageRiskSettings"]).authorization
    )
    assert client.put(URL, body, format="json").status_code == 200


def test_one_company_never_sees_or_changes_anothers_policy(api_client, other_api_client, company, other_company):
    api_client.put(URL, {"enabled": True, "schedule": {"type": "weekday", "weekday": "friday"}}, format="json")

    assert other_api_client.get(URL).json()["data"]["enabled"] is False
    other_api_client.put(URL, {"enabled": False, "schedule": {"type": "last_banking_day_of_month"}}, format="json")
    assert RetryPolicy.objects.get(company=company).enabled is True


def test_the_migration_grants_manage_risk_settings_to_the_admin_role_and_the_live_group():
    from accounts.models import ActionGroup, Role

    assert "ManageRiskSettings" in Role.objects.get(name="admin").actions
    assert "ManageRiskSettings" in ActionGroup.objects.get(name="live-api-key").actions
    assert "ManageRiskSettings" not in Role.objects.get(name="reporting").actions


# 2026-12-08 is a Tuesday; 2026-12-25 (Friday) a Fed holiday; 2027-01-01 (Friday) too; 2026-11-26 Thanksgiving.
@pytest.mark.parametrize(
    ("schedule", "returned_on", "expected"),
    [
        ({"schedule_type": "after_banking_days", "banking_days": 3}, date(2026, 12, 8), date(2026, 12, 11)),
        ({"schedule_type": "after_banking_days", "banking_days": 3}, date(2026, 12, 23), date(2026, 12, 29)),
        ({"schedule_type": "weekday", "weekday": 4}, date(2026, 12, 8), date(2026, 12, 11)),
        ({"schedule_type": "weekday", "weekday": 4}, date(2026, 12, 11), date(2026, 12, 18)),  # strictly after
        ({"schedule_type": "weekday", "weekday": 4}, date(2026, 12, 21), date(2026, 12, 28)),  # the holiday rolls
        ({"schedule_type": "days_of_month", "days_of_month": [1, 15]}, date(2026, 12, 8), date(2026, 12, 15)),
        ({"schedule_type": "days_of_month", "days_of_month": [1, 15]}, date(2026, 12, 15), date(2027, 1, 4)),
        ({"schedule_type": "days_of_month", "days_of_month": [31]}, date(2027, 2, 2), date(2027, 3, 1)),  # Feb 28: Sun
        ({"schedule_type": "last_banking_day_of_month"}, date(2026, 12, 8), date(2026, 12, 31)),
        ({"schedule_type": "last_banking_day_of_month"}, date(2026, 12, 31), date(2027, 1, 29)),
        ({"schedule_type": "last_banking_day_of_month"}, date(2027, 1, 30), date(2027, 2, 26)),
    ],
)
def test_the_next_attempt_day_of_each_schedule(schedule, returned_on, expected):
    assert next_attempt_date(RetryPolicy(**schedule), returned_on) == expected


def test_a_charge_may_opt_out_with_retry_policy_none(api_client, company):
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))

    response = api_client.put("/transactions", saved_charge_body(method, retryPolicy="none"), format="json")

    assert response.status_code == 201, response.content
    assert response.json()["data"]["retryPolicy"] == "none"
    assert Transaction.objects.get(uuid=response.json()["data"]["uuid"]).retry_policy == "none"
    plain = api_client.put("/transactions", saved_charge_body(method, amount=2600), format="json").json()["data"]
    assert (plain["retryPolicy"], plain["retry"], plain["finality"], plain["returnWindows"]) == (
        None,
        None,
        "pending",
        None,
    )


@pytest.mark.parametrize("value", ["always", "", 1, True])
def test_a_charge_with_another_retry_policy_is_400_naming_it(api_client, company, value):
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))

    response = api_client.put("/transactions", saved_charge_body(method, retryPolicy=value), format="json")

    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "retryPolicy"
    assert not Transaction.objects.exists()
