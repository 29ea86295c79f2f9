"""GET /risk/report: the evidence an ODFI asks for, as JSON and as CSV."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest
from django.utils import timezone

from tests import factories
from transactions.models import DebitHold, ReturnPolicy, RiskAction, RiskAlert, RiskReview

pytestmark = pytest.mark.django_db


@pytest.fixture
def evidence(company, other_company):
    reviewer = factories.UserFactory(email="risk.officer@example.com")
    RiskReview.objects.create(company=company, reviewed_by=reviewer, reviewed_on=date(2026, 6, 30), notes="Annual")
    ReturnPolicy.objects.create(company=company, return_code="R01", notify=True)
    alert = RiskAlert.objects.create(
        company=company,
        category="overall",
        level="breached",
        returns=4,
        debits=20,
        rate=0.2,
        threshold=0.15,
        as_of=date(2026, 11, 20),
    )
    DebitHold.objects.create(company=company, reason="overall return rate 4/20", alert=alert)
    RiskAction.objects.create(company=company, action="hold_company_debits", alert=alert, detail="held")
    RiskAlert.objects.create(company=other_company, category="overall", level="warning", as_of=date(2026, 11, 20))
    RiskReview.objects.create(company=other_company, reviewed_on=date(2026, 1, 1), notes="not theirs to see")


def test_report_json_has_policy_thresholds_rates_alerts_actions_holds_and_reviews(api_client, company, evidence):
    response = api_client.get("/risk/report")

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data["companyUuid"] == str(company.uuid)
    assert data["settings"] == {
        "warningPercent": 80,
        "holdDebitsOnBreach": True,
        "minimumDebitsForHold": 200,
        "accountValidation": "off",
    }
    assert data["thresholds"]["unauthorized"] == {"threshold": 0.005, "warningLevel": 0.005 * 80 / 100}
    policy = {row["returnCode"]: row for row in data["policy"]}
    assert policy["R01"] == {
        "returnCode": "R01",
        "reason": "Insufficient Funds",
        "actions": ["notify"],
        "source": "company",
    }
    assert policy["R10"]["actions"] == ["block_method", "hold_customer_debits"] and policy["R10"]["source"] == "default"
    assert set(data["currentRates"]) == {"period", "files"}
    assert len(data["ratesByMonth"]) == 12
    assert data["ratesByMonth"][-1]["month"] == timezone.now().strftime("%Y-%m")
    assert [(alert["category"], alert["level"]) for alert in data["alerts"]] == [("overall", "breached")]
    assert [action["action"] for action in data["actions"]] == ["hold_company_debits"]
    assert data["debitHolds"][0]["scope"] == "company" and data["debitHolds"][0]["liftedAt"] is None
    assert data["reviews"] == [
        {"reviewedOn": "2026-06-30", "reviewedBy": "platform risk staff", "notes": "Annual", "rules": []}
    ]
    assert "risk.officer" not in response.content.decode()  # N15: no staff email reaches the merchant


def test_report_csv_has_every_section(api_client, evidence):
    response = api_client.get("/risk/report", {"format": "csv"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    sections = {row["section"] for row in rows}
    assert sections == {
        "company",
        "setting",
        "threshold",
        "policy",
        "rate60d",
        "rateMonth",
        "alert",
        "action",
        "debitHold",
        "review",
        "fraudRule",
        "microEntries",
    }
    review = next(row for row in rows if row["section"] == "review")
    assert (review["subject"], review["value"], review["detail"]) == (
        "platform risk staff",
        "2026-06-30",
        "Annual",
    )
    assert len([row for row in rows if row["section"] == "rateMonth"]) == 12 * 3
    assert "not theirs" not in response.content.decode()
    assert "risk.officer" not in response.content.decode()


def test_report_shows_the_account_validation_policy_in_force(api_client, company):
    company.merchant_settings.account_validation = "prenote_first"
    company.merchant_settings.save(update_fields=["account_validation"])

    data = api_client.get("/risk/report").json()["data"]
    rows = list(csv.DictReader(io.StringIO(api_client.get("/risk/report", {"format": "csv"}).content.decode())))

    assert data["settings"]["accountValidation"] == "prenote_first"
    assert {"section": "setting", "subject": "accountValidation", "value": "prenote_first"}.items() <= next(
        row for row in rows if row["subject"] == "accountValidation"
    ).items()


def test_unknown_parameter_is_400(api_client):
    assert api_client.get("/risk/report", {"month": "2026-10"}).status_code == 400
