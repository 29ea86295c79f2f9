"""A company's settings live on their own row (accounts.MerchantSettings): every way of making a company makes it,
the company page edits it inline (risk controls only with their permission), and the wire shows the same values."""

from __future__ import annotations

import ast
from datetime import time
from pathlib import Path
from uuid import uuid4

import pytest
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.test import Client

from accounts.models import Company, MerchantSettings
from accounts.services import company_create, company_get_or_create
from tests import factories
from tests.source_scan import product_findings

pytestmark = pytest.mark.django_db

ADD = "/admin/accounts/company/add/"
ROOT = Path(__file__).resolve().parents[2]


def _superuser_client() -> Client:
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    return client


def _settings_of(company: Company) -> tuple:
    stored = MerchantSettings.objects.get(pk=company.pk)
    return stored.hold_over, stored.decline_over, stored.account_validation, stored.cutoff_time


def test_company_create_makes_the_settings_row_with_the_limits_given():
    company = company_create(name="Acme", hold_over=500, account_validation="require")
    assert _settings_of(company) == (500, 2_500_000, "require", time(16))


def test_company_get_or_create_makes_the_row_once_and_keeps_the_uuid():
    uuid = uuid4()
    company, created = company_get_or_create(uuid=uuid, name="Demo", sandbox=True)
    again, created_again = company_get_or_create(uuid=uuid, name="Demo", sandbox=True)
    assert (created, created_again, again.pk, company.uuid, company.is_sandbox) == (True, False, company.pk, uuid, True)
    assert MerchantSettings.objects.filter(company=company).count() == 1


def test_a_bad_setting_creates_no_company():
    with pytest.raises(ValidationError) as raised:
        company_create(name="Bad", account_validation="sometimes")
    assert "account_validation" in raised.value.message_dict
    assert not Company.objects.filter(name="Bad").exists()


def test_the_factory_puts_settings_keywords_on_the_settings_row():
    company = factories.CompanyFactory(hold_over=5, staged_rollout=True)
    assert (company.staged_rollout, _settings_of(company)[0]) == (True, 5)


def _add_form(**settings) -> dict:
    form = {
        "name": "Added Merchant",
        "ach_company_id": "9ADDED0001",
        "merchant_settings-TOTAL_FORMS": "1",
        "merchant_settings-INITIAL_FORMS": "0",
        "merchant_settings-0-hold_over": "10,000.00",
        "merchant_settings-0-decline_over": "25,000.00",
        "merchant_settings-0-account_validation": "off",
        "merchant_settings-0-mandate_policy": "off",
        "merchant_settings-0-cutoff_time": "16:00",
        "merchant_settings-0-same_day_windows": "10:30,14:45,16:45",
        "merchant_settings-0-return_rate_warning_percent": "80",
        "merchant_settings-0-hold_debits_on_breach": "on",
        "merchant_settings-0-return_rate_minimum_debits": "200",
        "merchant_settings-0-credit_velocity_days": "1",
        "merchant_settings-0-funds_hold_banking_days": "2",
        **{
            f"{prefix}-{n}": "0"
            for prefix in ("return_policies", "risk_reviews")
            for n in ("TOTAL_FORMS", "INITIAL_FORMS")
        },
    }
    form.update({f"merchant_settings-0-{name}": value for name, value in settings.items()})
    return form


@pytest.mark.parametrize("forms", ["1", "0"])  # the inline sent with its defaults, or not sent at all
def test_a_company_added_in_the_admin_with_its_settings_untouched_gets_the_defaults(forms):
    response = _superuser_client().post(ADD, {**_add_form(), "merchant_settings-TOTAL_FORMS": forms})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _settings_of(Company.objects.get(name="Added Merchant")) == (1_000_000, 2_500_000, "off", time(16))


def test_a_company_added_in_the_admin_keeps_the_settings_typed():
    response = _superuser_client().post(ADD, _add_form(hold_over="500.00", account_validation="require"))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _settings_of(Company.objects.get(name="Added Merchant")) == (50_000, 2_500_000, "require", time(16))


def test_staff_without_risk_controls_see_the_settings_read_only_in_dollars(company):
    user = factories.UserFactory(is_staff=True)
    user.user_permissions.add(*Permission.objects.filter(codename__in=["view_company", "change_company"]))
    factories.membership(user, company, "support")
    client = Client()
    client.force_login(user)
    page = client.get(f"/admin/accounts/company/{company.pk}/change/").content.decode()
    assert "$10,000.00" in page and "$25,000.00" in page
    assert 'name="merchant_settings-0-hold_over"' not in page


def test_the_risk_report_shows_the_settings_as_before(api_client, company):
    company.merchant_settings.account_validation = "prenote_first"
    company.merchant_settings.save(update_fields=["account_validation"])
    settings = api_client.get("/risk/report").json()["data"]["settings"]
    assert settings == {
        "warningPercent": 80,
        "holdDebitsOnBreach": True,
        "minimumDebitsForHold": 200,
        "accountValidation": "prenote_first",
    }


def _company_creations(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if called == "Company" or called.startswith("Company.objects.") and called.endswith(CREATES):
                found.append((node.lineno, called))
    return found


CREATES = ("create", "bulk_create", "get_or_create", "update_or_create")


def test_only_accounts_makes_companies():
    """A company made anywhere else would have no settings row, and its first charge would fail reading it."""
    assert product_findings(ROOT, _company_creations, home=("accounts",), also_skip={"bench"}) == []


def test_the_company_scan_sees_a_company_made_elsewhere(tmp_path):
    (tmp_path / "maker.py").write_text(
        "Company.objects.create(name='x')\ncompany = Company(name='y')\nCompany.objects.filter(pk=1).exists()\n"
    )
    assert product_findings(tmp_path, _company_creations, home=("accounts",)) == [
        "maker.py:1: Company.objects.create",
        "maker.py:2: Company",
    ]
