"""F12: money as dollars and rates as percentages on every admin page; F23: release, reject and restore ask for
confirmation and a reason that goes on the trail; F22: search by last four digits and by trace number."""

from __future__ import annotations

import re

import pytest
from django.contrib import admin
from django.test import Client, RequestFactory

from accounts.models import Company
from tests import factories
from tests.transactions.ach.conftest import bank_txn
from transactions.models import RiskAlert, Transaction, TransactionEvent, TransactionHold
from vault.admin_figures import DollarsFormFieldsMixin

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/transactions/transaction/"
# Every cents or fraction column an admin page could show raw.
FIGURE_FIELDS = {
    "amount",
    "debit_total",
    "credit_total",
    "net_amount",
    "hold_over",
    "decline_over",
    "daily_volume_limit",
    "rate",
    "threshold",
}


@pytest.fixture
def operator(db) -> Client:
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    return client


def test_no_admin_page_lists_or_shows_a_raw_figure_field(company):
    request = RequestFactory().get("/admin/")
    request.user = factories.UserFactory(is_staff=True, is_superuser=True)
    txn = bank_txn(company)
    for model, model_admin in admin.site._registry.items():
        obj = txn if model is Transaction else company if model is Company else None
        for page in (model_admin, *model_admin.get_inline_instances(request, obj)):
            shown = set(page.get_fields(request, obj))
            if page is model_admin:
                shown |= set(model_admin.get_list_display(request))
            raw = {name for name in shown if isinstance(name, str)} & FIGURE_FIELDS
            if isinstance(page, DollarsFormFieldsMixin):
                raw -= set(page.money_fields) - set(page.get_readonly_fields(request, obj))  # typed in dollars
            assert not raw, f"{model._meta.label} admin ({type(page).__name__}) shows {raw} raw"


def test_amounts_read_as_dollars_and_rates_as_percentages(operator, company):
    txn = bank_txn(company, amount=1_500_000)
    RiskAlert.objects.create(
        company=company,
        category="overall",
        level="breached",
        returns=1,
        debits=12,
        rate=1 / 12,
        threshold=0.03,
        as_of=txn.effective_date,
    )
    listing = operator.get(CHANGELIST).content.decode()
    assert "$15,000.00" in listing and ">1500000<" not in listing
    detail = operator.get(f"{CHANGELIST}{txn.pk}/change/").content.decode()
    assert "ACH Debit $15,000.00" in detail
    alerts = operator.get("/admin/transactions/riskalert/").content.decode()
    assert "8.33%" in alerts and "3.00%" in alerts and "0.0833" not in alerts
    companies = operator.get("/admin/accounts/company/").content.decode()
    assert "$10,000.00" in companies and "$25,000.00" in companies


def test_risk_limits_are_edited_in_dollars(operator, company):
    page = f"/admin/accounts/company/{company.pk}/change/"
    form = operator.get(page).content.decode()
    assert 'value="10,000.00"' in form
    response = operator.post(
        page,
        {
            **_unchanged_company_form(company),
            **_empty_inline_management_forms(form),
            **factories.merchant_settings_form(
                company, hold_over="$12,000.50", decline_over="25000", daily_volume_limit=""
            ),
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    company.refresh_from_db()
    assert (
        company.merchant_settings.hold_over,
        company.merchant_settings.decline_over,
        company.merchant_settings.daily_volume_limit,
    ) == (1_200_050, 2_500_000, None)


def _unchanged_company_form(company) -> dict:
    request = RequestFactory().get("/admin/")
    request.user = factories.UserFactory(is_staff=True, is_superuser=True)
    form = admin.site._registry[Company].get_form(request, company)(instance=company)
    data = {}
    for name, field in form.fields.items():
        value = field.prepare_value(form[name].value())
        if value is not None and value is not False:
            data[name] = value
    return data


def _empty_inline_management_forms(page: str) -> dict:
    data = {}
    for prefix in set(re.findall(r'name="([\w-]+)-TOTAL_FORMS"', page)):
        data.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    return data


def _held(company, amount: int) -> Transaction:
    txn = bank_txn(company, status="HELD", amount=amount)
    TransactionHold.objects.create(company=company, transaction=txn, hold_code="AMT", hold_reason="over limit")
    return txn


def test_release_asks_for_confirmation_with_the_total_and_records_the_reason(operator, company):
    first, second = _held(company, 1_500_000), _held(company, 250)
    selected = {"action": "release_holds", "_selected_action": [first.pk, second.pk]}
    page = operator.post(CHANGELIST, selected)
    text = page.content.decode()
    assert page.status_code == 200 and "$15,002.50" in text and 'name="reason"' in text
    first.refresh_from_db()
    assert first.status == "HELD"  # nothing moved before the confirmation
    without_reason = operator.post(CHANGELIST, {**selected, "post": "yes", "reason": " "}).content.decode()
    assert "This field is required" in without_reason
    operator.post(CHANGELIST, {**selected, "post": "yes", "reason": "merchant sent the invoice"})
    first.refresh_from_db()
    assert first.status == "Pending"
    released = TransactionEvent.objects.get(transaction=first, event="released")
    assert released.reason == "merchant sent the invoice"


@pytest.mark.parametrize("action", ["reject_transactions", "restore_transactions"])
def test_reject_and_restore_ask_for_confirmation_too(operator, company, action):
    txn = bank_txn(company)
    page = operator.post(CHANGELIST, {"action": action, "_selected_action": [txn.pk]}).content.decode()
    assert 'name="reason"' in page and "$15.00" in page
    txn.refresh_from_db()
    assert txn.status == "Pending"


def test_restore_puts_the_reason_on_the_trail(operator, company):
    txn = bank_txn(company)
    selected = {"_selected_action": [txn.pk], "post": "yes"}
    operator.post(CHANGELIST, {**selected, "action": "reject_transactions", "reason": "payer disputes"})
    operator.post(CHANGELIST, {**selected, "action": "restore_transactions", "reason": "payer confirmed"})
    reasons = dict(TransactionEvent.objects.filter(transaction=txn).values_list("event", "reason"))
    assert reasons["rejected"] == "payer disputes" and reasons["restored"] == "payer confirmed"


def test_search_by_last_four_and_by_trace_number(operator, company):
    wanted = bank_txn(company, account_number="5550006789", trace_number="021000020000042")
    other = bank_txn(company, account_number="5550001111", trace_number="021000020000043")
    by_last_four = operator.get(CHANGELIST, {"q": "6789"}).content.decode()
    assert str(wanted.uuid) in by_last_four and str(other.uuid) not in by_last_four
    by_trace = operator.get(CHANGELIST, {"q": "021000020000042"}).content.decode()
    assert str(wanted.uuid) in by_trace and str(other.uuid) not in by_trace
    assert "021000020000042" in operator.get(f"{CHANGELIST}{wanted.pk}/change/").content.decode()


def test_search_by_customer_name_and_the_customer_page_links_its_transactions(operator, company):
    """F22: support finds a payer by name, and goes from a customer to their transactions."""
    hopper = factories.CustomerFactory(company=company, last_name="Hopper")
    wanted = bank_txn(company, customer=hopper)
    other = bank_txn(company, customer=factories.CustomerFactory(company=company, last_name="Lovelace"))
    found = operator.get(CHANGELIST, {"q": "hopper"}).content.decode()
    assert str(wanted.uuid) in found and str(other.uuid) not in found
    page = operator.get(f"/admin/customers/customer/{hopper.pk}/change/").content.decode()
    link = f"{CHANGELIST}?customer__id__exact={hopper.pk}"
    assert link in page
    listed = operator.get(link).content.decode()
    assert str(wanted.uuid) in listed and str(other.uuid) not in listed


def test_a_bank_entry_page_leaves_out_the_card_fields(operator, company):
    """F21: an ACH entry's page has no card number or authorisation fields."""
    page = operator.get(f"{CHANGELIST}{bank_txn(company).pk}/change/").content.decode()
    assert "Trace number" in page and "Auth response code" not in page and "Card masked" not in page
