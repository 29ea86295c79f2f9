"""M10: a staff user holding view_* and change_* on every model (and a membership) may edit a company's name and
revoke keys, but not its risk limits, ACH company id, cut-off or staged-rollout flag, nor a key's rollout flag,
without the dedicated permissions; Django's Group and Permission pages are for superusers only."""

from __future__ import annotations

from datetime import time

import pytest
from django.contrib.auth.models import Group, Permission
from django.test import Client

from tests import factories

pytestmark = pytest.mark.django_db

COMPANY_FORM = {
    "name": "Renamed Merchant",
    "staged_rollout": "on",
    "ach_company_id": "1EVILCORP1",
    # The return-rate program's inlines on the company page, sent empty.
    **{
        f"{prefix}-{count}": "0"
        for prefix in ("return_policies", "risk_reviews")
        for count in ("TOTAL_FORMS", "INITIAL_FORMS")
    },
}
# The settings inline on the same page (accounts.MerchantSettings).
SETTINGS_FORM = {
    "hold_over": "999,999.99",  # dollars: 99999999 cents
    "decline_over": "999,999.99",  # dollars: 99999999 cents
    "daily_volume_limit": "999,999.99",  # dollars: 99999999 cents
    "cutoff_time": "23:59",
    "same_day_windows": "09:00,12:00",
    "account_validation": "require",
    "return_rate_warning_percent": "100",
    "hold_debits_on_breach": None,  # left out of the form: off
    # Credit-side fraud monitoring (CONTRACT 12): risk controls as well.
    "credit_hold_new_account_days": "0",
    "credit_velocity_amount": "999,999.99",  # dollars: 99999999 cents
    "credit_velocity_count": "99",
    "credit_velocity_days": "30",
}


def _company_form(company) -> dict:
    return {**COMPANY_FORM, **factories.merchant_settings_form(company, **SETTINGS_FORM)}


def _staff_client(company, *extra_codenames: str) -> Client:
    user = factories.UserFactory(is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__regex=r"^(view|change|add|delete)_"))
    user.user_permissions.add(*Permission.objects.filter(codename__in=extra_codenames))
    factories.membership(user, company, "support")
    client = Client()
    client.force_login(user)
    return client


def _company_state(company) -> tuple:
    company.refresh_from_db()
    return (
        company.staged_rollout,
        company.merchant_settings.hold_over,
        company.merchant_settings.decline_over,
        company.merchant_settings.daily_volume_limit,
        company.merchant_settings.cutoff_time,
        company.ach_company_id,
        company.merchant_settings.account_validation,
        company.merchant_settings.return_rate_warning_percent,
        company.merchant_settings.hold_debits_on_breach,
        company.merchant_settings.credit_hold_new_account_days,
        company.merchant_settings.credit_velocity_amount,
        company.merchant_settings.credit_velocity_count,
        company.merchant_settings.credit_velocity_days,
    )


def test_change_company_alone_edits_the_name_but_not_risk_controls(company):
    before = _company_state(company)
    response = _staff_client(company).post(f"/admin/accounts/company/{company.pk}/change/", _company_form(company))
    assert response.status_code == 302, response.content
    assert _company_state(company) == before
    assert company.name == "Renamed Merchant"


def test_manage_risk_controls_edits_them(company):
    client = _staff_client(company, "manage_risk_controls")
    response = client.post(f"/admin/accounts/company/{company.pk}/change/", _company_form(company))
    assert response.status_code == 302, response.content
    # hold_debits_on_breach is a checkbox left out of the form: off.
    assert _company_state(company) == (
        True, 99999999, 99999999, 99999999, time(23, 59), "1EVILCORP1", "require", 100, False, 0, 99999999, 99, 30
    )  # fmt: skip


def test_change_apikey_alone_does_not_flip_rollout_allowed(company):
    key = factories.issue_api_key(company, name="ci").api_key
    response = _staff_client(company).post(
        f"/admin/accounts/apikey/{key.pk}/change/", {"name": "renamed", "rollout_allowed": "on"}
    )
    assert response.status_code == 302, response.content
    key.refresh_from_db()
    assert (key.name, key.rollout_allowed) == ("renamed", False)


def test_manage_rollout_allowed_flips_it(company):
    key = factories.issue_api_key(company, name="ci").api_key
    client = _staff_client(company, "manage_rollout_allowed")
    client.post(f"/admin/accounts/apikey/{key.pk}/change/", {"name": "ci", "rollout_allowed": "on"})
    key.refresh_from_db()
    assert key.rollout_allowed is True


def test_group_admin_is_closed_to_staff_holding_group_permissions(company):
    group = Group.objects.create(name="support staff")
    client = _staff_client(company)
    assert client.get("/admin/auth/group/").status_code == 403
    assert client.get(f"/admin/auth/group/{group.pk}/change/").status_code == 403
    release = Permission.objects.get(codename="release_hold")
    response = client.post("/admin/auth/group/add/", {"name": "escalated", "permissions": [release.pk]})
    assert response.status_code == 403
    assert not Group.objects.filter(name="escalated").exists()
    assert "/admin/auth/" not in client.get("/admin/").content.decode()


def test_permission_rows_have_no_admin_page(company):
    assert _staff_client(company).get("/admin/auth/permission/").status_code == 404


def test_group_admin_is_open_to_superusers(db):
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    assert client.get("/admin/auth/group/").status_code == 200
    assert client.get("/admin/auth/group/add/").status_code == 200
