"""What the risk report and the company's admin page show of fraud monitoring beyond return rates (CONTRACT 12;
ACH review d-4 and d-9): the rules in force (also in each yearly review record), a company sending WEB debits without
account validation, and micro-entry volumes sent and returned."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
from django.test import Client
from django.urls import reverse

from tests import factories
from tests.transactions.ach.conftest import run
from tests.transactions.ach.test_account_validation import _import
from tests.transactions.conftest import bank_details, put_charge
from transactions.models import RiskReview, Transaction

pytestmark = pytest.mark.django_db


def _web_debit(client) -> None:
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details()}
    assert put_charge(client, body).status_code == 201


def _fraud(client) -> dict:
    response = client.get("/risk/report")
    assert response.status_code == 200, response.content
    return response.json()["data"]["fraudMonitoring"]


def test_the_report_lists_the_fraud_rules_in_force(api_client, company):
    company.merchant_settings.account_validation = "require"
    company.merchant_settings.credit_hold_new_account_days = 3
    company.merchant_settings.credit_velocity_amount = 500000
    company.merchant_settings.save()

    rules = {rule["rule"]: rule for rule in _fraud(api_client)["rules"]}

    assert rules["web_debit_account_validation"] == {
        "rule": "web_debit_account_validation", "holdCode": "VAL", "enabled": True, "detail": "require",
    }  # fmt: skip
    assert rules["credit_to_new_account"]["enabled"] is True
    assert rules["credit_to_new_account"]["detail"] == "account added or changed (NOC included) within 3 banking days"
    assert rules["credit_velocity_amount"]["detail"] == "over 500000 cents per receiver account in 1 day"
    assert rules["credit_velocity_count"] == {
        "rule": "credit_velocity_count", "holdCode": "NEW", "enabled": False, "detail": "off",
    }  # fmt: skip


def test_a_company_sending_web_debits_under_policy_off_is_flagged(api_client, company):
    assert _fraud(api_client)["flags"] == []
    _web_debit(api_client)
    _web_debit(api_client)

    (flag,) = _fraud(api_client)["flags"]

    assert (flag["flag"], flag["count"]) == ("web_debits_without_validation", 2)
    rows = list(csv.reader(io.StringIO(api_client.get("/risk/report", {"format": "csv"}).content.decode())))
    assert any(row[:3] == ["flag", "web_debits_without_validation", "2"] for row in rows)
    company.merchant_settings.account_validation = "require"
    company.merchant_settings.save(update_fields=["account_validation"])
    assert _fraud(api_client)["flags"] == []


def test_the_company_admin_page_shows_the_flag(api_client, company):
    _web_debit(api_client)
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True, email="root@example.com"))

    page = client.get(reverse("admin:accounts_company_change", args=[company.pk]))

    assert page.status_code == 200
    assert "1 WEB debits in 60 days under account validation policy off" in page.content.decode()


def test_micro_entry_volumes_sent_and_returned_appear_in_the_report(
    api_client, company, tmp_path, ordinary_banking_day
):
    company.merchant_settings.hold_debits_on_breach = False
    company.merchant_settings.save(update_fields=["hold_debits_on_breach"])
    method = factories.PaymentMethodFactory(customer=factories.CustomerFactory(company=company))
    url = f"/customers/{method.customer.uuid}/payment-methods/{method.uuid}/validate"
    assert api_client.post(url, {"method": "microdeposits"}, format="json").status_code == 202
    assert _fraud(api_client)["microEntries"]["sent"] == 0  # queued, not sent yet
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    run("originate", "--at", now)
    credit = Transaction.objects.filter(account_validation__isnull=False, type="Credit").first()

    _import(tmp_path, [(credit, "R03", {})], now)

    micro = _fraud(api_client)["microEntries"]
    assert (micro["sent"], micro["returned"], micro["returnRate"]) == (3, 1, 1 / 3)


def test_a_yearly_review_records_the_rules_it_reviewed(company, api_client):
    company.merchant_settings.credit_velocity_count = 4
    company.merchant_settings.save(update_fields=["credit_velocity_count"])
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True, email="root@example.com"))
    url = reverse("admin:accounts_company_change", args=[company.pk])
    form = client.get(url).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name in form.fields}
    data.update(
        {
            **factories.merchant_settings_form(company, cutoff_time="16:00"),
            "risk_reviews-TOTAL_FORMS": "1",
            "risk_reviews-INITIAL_FORMS": "0",
            "risk_reviews-0-reviewed_on": "2026-11-01",
            "risk_reviews-0-notes": "Yearly review",
        }
    )
    for prefix in ("memberships", "api_keys", "return_policies"):
        data.setdefault(f"{prefix}-TOTAL_FORMS", "0")
        data.setdefault(f"{prefix}-INITIAL_FORMS", "0")

    response = client.post(url, data)

    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    rules = {rule["rule"]: rule for rule in RiskReview.objects.get(company=company).rules}
    assert rules["credit_velocity_count"]["enabled"] is True
    assert {"web_debit_account_validation", "credit_to_new_account", "credit_velocity_amount"} <= set(rules)
    (review,) = api_client.get("/risk/report").json()["data"]["reviews"]
    assert review["rules"] == RiskReview.objects.get(company=company).rules
