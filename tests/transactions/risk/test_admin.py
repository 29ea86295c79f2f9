"""The back office of the return-rate program: sortable rates on the company list, the per-company rates page with
its charts, policy and review inlines, lifting debit holds, and tenant isolation of all of it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests import factories
from tests.transactions.risk.test_return_rates import originated_file, returned
from transactions.models import DebitHold, ReturnPolicy, RiskReview
from transactions.risk.policies import company_debit_hold_place

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client() -> Client:
    client = Client()
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True, email="root@example.com"))
    return client


def _recent(company, debits: int, codes: list[str], modifier: str) -> None:
    """`debits` WEB debits batched three days ago; the first ones returned yesterday with `codes`."""
    batched = (timezone.now() - timedelta(days=3)).replace(tzinfo=None).isoformat()
    entries = originated_file(company, batched, {("ACH", "WEB", "Debit"): debits}, modifier)[("ACH", "WEB", "Debit")]
    when = (timezone.now() - timedelta(days=1)).replace(tzinfo=None).isoformat()
    for txn, code in zip(entries, codes, strict=False):
        returned(txn, code, when)


def test_company_list_shows_the_three_current_rates_and_sorts_by_them(superuser_client, company, other_company):
    _recent(company, 10, ["R10", "R02"], "A")  # unauthorized 10%, administrative 10%, overall 20%
    _recent(other_company, 4, ["R01"], "B")  # overall 25%
    url = reverse("admin:accounts_company_changelist")

    page = superuser_client.get(url)

    assert page.status_code == 200
    text = page.content.decode()
    assert "10.00%" in text and "20.00%" in text and "25.00%" in text
    column = page.context["cl"].list_display.index("overall_rate_column")
    by_overall = superuser_client.get(url, {"o": f"-{column}"}).context["cl"].result_list
    assert [row.name for row in by_overall][:2] == [other_company.name, company.name]
    by_unauthorized = superuser_client.get(url, {"o": f"-{column - 2}"}).context["cl"].result_list
    assert [row.name for row in by_unauthorized][:2] == [company.name, other_company.name]


def test_return_rates_page_draws_each_rate_against_its_threshold(superuser_client, company):
    _recent(company, 10, ["R10", "R02"], "A")
    DebitHold.objects.create(company=company, reason="unauthorized return rate 1/10 is over the 0.5% threshold")

    page = superuser_client.get(reverse("admin:accounts_company_return_rates", args=[company.pk]))

    assert page.status_code == 200
    text = page.content.decode()
    assert text.count("return rate against its threshold") == 3 and text.count("<polyline") == 3
    assert "threshold 0.50%" in text and "threshold 3.00%" in text and "threshold 15.00%" in text
    assert "10.00%" in text and "20.00%" in text  # the current figures at the top
    assert "every new debit of this company" in text


def test_staff_of_another_company_get_404_on_the_rates_page(company, other_company):
    user = factories.UserFactory(is_staff=True, email="support@example.com")
    user.user_permissions.add(*Permission.objects.filter(codename="view_company"))
    factories.membership(user, other_company, "support")
    client = Client()
    client.force_login(user)

    assert client.get(reverse("admin:accounts_company_return_rates", args=[company.pk])).status_code == 404
    assert client.get(reverse("admin:accounts_company_return_rates", args=[other_company.pk])).status_code == 200


def test_policy_rows_and_a_signed_review_are_edited_on_the_company_page(superuser_client, company):
    url = reverse("admin:accounts_company_change", args=[company.pk])
    form = superuser_client.get(url).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name in form.fields}
    data.update(
        {
            "name": company.name,
            **factories.merchant_settings_form(
                company, cutoff_time="16:00", return_rate_warning_percent="70", hold_debits_on_breach="on"
            ),
            "return_policies-TOTAL_FORMS": "1",
            "return_policies-INITIAL_FORMS": "0",
            "return_policies-0-return_code": "R01",
            "return_policies-0-notify": "on",
            "risk_reviews-TOTAL_FORMS": "1",
            "risk_reviews-INITIAL_FORMS": "0",
            "risk_reviews-0-reviewed_on": "2026-11-01",
            "risk_reviews-0-notes": "Yearly review: thresholds and policy unchanged",
        }
    )
    for prefix in ("memberships", "api_keys"):
        data.setdefault(f"{prefix}-TOTAL_FORMS", "0")
        data.setdefault(f"{prefix}-INITIAL_FORMS", "0")

    response = superuser_client.post(url, data)

    assert response.status_code == 302, response.context["adminform"].form.errors if response.context else ""
    company.refresh_from_db()
    assert company.merchant_settings.return_rate_warning_percent == 70
    policy = ReturnPolicy.objects.get(company=company)
    assert (policy.return_code, policy.notify, policy.block_method) == ("R01", True, False)
    review = RiskReview.objects.get(company=company)
    assert review.reviewed_by.email == "root@example.com"


def test_lifting_a_hold_lets_the_next_debit_through(superuser_client, company, api_client):
    hold = company_debit_hold_place(company_id=company.pk, reason="return rate over", at=timezone.now())
    company.refresh_from_db()
    assert company.merchant_settings.has_debit_holds

    response = superuser_client.post(
        reverse("admin:transactions_debithold_changelist"), {"action": "lift", "_selected_action": [hold.pk]}
    )

    assert response.status_code == 302
    hold.refresh_from_db()
    company.refresh_from_db()
    assert hold.lifted_at is not None and not company.merchant_settings.has_debit_holds
    body = {
        "method": "ACH",
        "type": "Debit",
        "amount": 1000,
        "paymentDetails": {
            "name": "A",
            "accountType": "Checking",
            "accountNumber": "1234",
            "routingNumber": "021000021",
        },
    }
    assert api_client.put("/transactions", body, format="json").json()["data"]["status"] == "Pending"


def test_the_return_policy_is_a_risk_control_staff_without_the_permission_cannot_add_to(company):
    user = factories.UserFactory(is_staff=True, email="support@example.com")
    user.user_permissions.add(*Permission.objects.filter(codename__regex=r"^(view|change|add|delete)_"))
    factories.membership(user, company, "support")
    client = Client()
    client.force_login(user)
    data = {
        "name": company.name,
        "return_policies-TOTAL_FORMS": "1",
        "return_policies-INITIAL_FORMS": "0",
        "return_policies-0-return_code": "R10",
        "risk_reviews-TOTAL_FORMS": "0",
        "risk_reviews-INITIAL_FORMS": "0",
    }

    client.post(reverse("admin:accounts_company_change", args=[company.pk]), data)

    assert not ReturnPolicy.objects.exists()


def test_a_signed_review_cannot_be_edited_or_deleted_in_another_persons_name(superuser_client, company):
    """N15: reviews are append-only evidence; the page shows them read-only and a post cannot change them."""
    signer = factories.UserFactory(is_staff=True, email="signer@example.com")
    review = RiskReview.objects.create(company=company, reviewed_by=signer, reviewed_on="2026-06-30", notes="Signed")
    url = reverse("admin:accounts_company_change", args=[company.pk])
    page = superuser_client.get(url)
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name in form.fields}
    data.update({"name": company.name, **factories.merchant_settings_form(company, return_rate_warning_percent="80")})
    data.update(
        {
            "risk_reviews-TOTAL_FORMS": "1",
            "risk_reviews-INITIAL_FORMS": "1",
            "risk_reviews-0-id": str(review.pk),
            "risk_reviews-0-company": str(company.pk),
            "risk_reviews-0-notes": "Rewritten",
            "risk_reviews-0-reviewed_on": "2020-01-01",
            "risk_reviews-0-DELETE": "on",
        }
    )
    for prefix in ("memberships", "api_keys", "return_policies"):
        data.setdefault(f"{prefix}-TOTAL_FORMS", "0")
        data.setdefault(f"{prefix}-INITIAL_FORMS", "0")
    superuser_client.post(url, data)
    review.refresh_from_db()
    assert (review.notes, str(review.reviewed_on), review.reviewed_by_id) == ("Signed", "2026-06-30", signer.pk)
    assert 'name="risk_reviews-0-DELETE"' not in page.content.decode()


def test_a_company_without_debits_shows_no_rate_rather_than_zero(superuser_client, company, other_company):
    """F25: 5 returns over 0 debits is no rate at all ("n/a"), not 0.00%; the API keeps 0 beside `debits: 0`."""
    _recent(other_company, 10, ["R10"], "B")
    listing = superuser_client.get(reverse("admin:accounts_company_changelist"))
    column = listing.context["cl"].list_display.index("overall_rate_column")
    rows = {row.name: row for row in listing.context["cl"].result_list}
    assert rows[company.name].overall_rate is None and "n/a" in listing.content.decode()
    by_overall = superuser_client.get(reverse("admin:accounts_company_changelist"), {"o": f"-{column}"})
    assert [row.name for row in by_overall.context["cl"].result_list][:2] == [other_company.name, company.name]

    page = superuser_client.get(reverse("admin:accounts_company_return_rates", args=[company.pk]))
    assert {category["rate"] for category in page.context["categories"]} == {"n/a"}
    assert {rate for month in page.context["months"] for _returns, rate in month["cells"]} == {"n/a"}
