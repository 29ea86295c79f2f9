"""The evidence of a company's return-risk program (Nacha 2.2.4): the policy in force, thresholds, rates by
month, every alert, action and debit hold, and the yearly review record. JSON, or CSV rows for the bank."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from accounts.models import Company
from transactions.models import DebitHold, ReturnPolicy, RiskAction, RiskAlert, RiskReview
from transactions.return_codes import RETURN_CODES
from transactions.risk import monitoring
from transactions.risk.policies import policy_in_force
from transactions.risk.return_rates import (
    CATEGORIES,
    THRESHOLDS,
    RateMethod,
    monthly_sheets,
    return_rates,
    rolling_period,
    today_eastern,
)
from vault.records import iso_utc, text_or_none

REPORT_MONTHS = 12
CSV_HEADER = ("section", "subject", "value", "detail", "at")


def _policy(company: Company) -> list[dict]:
    overrides = set(ReturnPolicy.objects.filter(company=company).values_list("return_code", flat=True))
    return [
        {
            "returnCode": code,
            "reason": RETURN_CODES[code].reason,
            "actions": sorted(action.value for action in actions),
            "source": "company" if code in overrides else "default",
        }
        for code, actions in policy_in_force(company=company).items()
        if actions or code in overrides
    ]


def _alerts(company: Company) -> list[dict]:
    return [
        {
            "uuid": str(alert.uuid),
            "category": alert.category,
            "level": alert.level,
            "returns": alert.returns,
            "debits": alert.debits,
            "rate": alert.rate,
            "threshold": alert.threshold,
            "asOf": alert.as_of.isoformat(),
            "transactionUuid": str(alert.transaction.uuid) if alert.transaction_id else None,
            "createdAt": iso_utc(alert.created_at),
        }
        for alert in RiskAlert.objects.filter(company=company).select_related("transaction").order_by("pk")
    ]


def _actions(company: Company) -> list[dict]:
    return [
        {
            "action": action.action,
            "returnCode": text_or_none(action.return_code),
            "transactionUuid": str(action.transaction.uuid) if action.transaction_id else None,
            "detail": action.detail,
            "takenAt": iso_utc(action.taken_at),
        }
        for action in RiskAction.objects.filter(company=company).select_related("transaction").order_by("pk")
    ]


def _holds(company: Company) -> list[dict]:
    return [
        {
            "scope": "customer" if hold.customer_id else "company",
            "customerUuid": str(hold.customer.uuid) if hold.customer_id else None,
            "reason": hold.reason,
            "createdAt": iso_utc(hold.created_at),
            "liftedAt": iso_utc(hold.lifted_at),
        }
        for hold in DebitHold.objects.filter(company=company).select_related("customer").order_by("pk")
    ]


# What a merchant learns of who signed a review: the platform's role, never a staff member's email (N15).
REVIEWER_ROLE = "platform risk staff"


def _reviews(company: Company) -> list[dict]:
    return [
        {
            "reviewedOn": review.reviewed_on.isoformat(),
            "reviewedBy": REVIEWER_ROLE if review.reviewed_by_id else None,
            "notes": review.notes,
            "rules": review.rules,
        }
        for review in RiskReview.objects.filter(company=company).order_by("pk")
    ]


def risk_report(*, company: Company, now: datetime) -> dict:
    percent = company.merchant_settings.return_rate_warning_percent
    window = rolling_period(today_eastern(now))
    monitored = {
        "rules": monitoring.fraud_rules(company),
        "flags": monitoring.flags(company=company, period=window),
        "microEntries": monitoring.micro_entry_volumes(company=company, period=window),
    }
    return {
        "companyUuid": str(company.uuid),
        "companyName": company.name,
        "generatedAt": iso_utc(now),
        "settings": {
            "warningPercent": percent,
            "holdDebitsOnBreach": company.merchant_settings.hold_debits_on_breach,
            "minimumDebitsForHold": company.merchant_settings.return_rate_minimum_debits,
            "accountValidation": company.merchant_settings.account_validation,
        },
        "thresholds": {
            category.value: {"threshold": THRESHOLDS[category], "warningLevel": THRESHOLDS[category] * percent / 100}
            for category in CATEGORIES
        },
        "policy": _policy(company),
        "fraudMonitoring": monitored,
        "currentRates": {
            method.value: return_rates(company=company, period=window, method=method).as_json() for method in RateMethod
        },
        "ratesByMonth": [
            {"month": sheet.period.first_day.strftime("%Y-%m"), **sheet.as_json()}
            for sheet in monthly_sheets(company=company, months=REPORT_MONTHS, now=now)
        ],
        "alerts": _alerts(company),
        "actions": _actions(company),
        "debitHolds": _holds(company),
        "reviews": _reviews(company),
    }


def _rate_rows(section: str, subject: str, sheet: dict) -> Iterator[tuple]:
    for category in CATEGORIES:
        figures = sheet[category.value]
        yield (
            section,
            f"{subject} {category.value}",
            figures["rate"],
            f"returns {figures['returns']} / debits {sheet['debits']}; threshold {figures['threshold']}",
            sheet["asOf"],
        )


def risk_report_rows(report: dict) -> Iterator[tuple]:
    """The report flattened to (section, subject, value, detail, at) rows, in the order an auditor reads it."""
    yield ("company", "name", report["companyName"], report["companyUuid"], report["generatedAt"])
    yield ("setting", "warningPercent", report["settings"]["warningPercent"], "", "")
    yield ("setting", "holdDebitsOnBreach", report["settings"]["holdDebitsOnBreach"], "", "")
    yield ("setting", "minimumDebitsForHold", report["settings"]["minimumDebitsForHold"], "", "")
    yield ("setting", "accountValidation", report["settings"]["accountValidation"], "", "")
    for category, levels in report["thresholds"].items():
        yield ("threshold", category, levels["threshold"], f"warning at {levels['warningLevel']}", "")
    for row in report["policy"]:
        yield ("policy", row["returnCode"], " ".join(row["actions"]) or "none", row["source"], "")
    fraud = report["fraudMonitoring"]
    for rule in fraud["rules"]:
        yield ("fraudRule", rule["rule"], "on" if rule["enabled"] else "off", rule["detail"], "")
    for flag in fraud["flags"]:
        yield ("flag", flag["flag"], flag["count"], flag["detail"], "")
    micro = fraud["microEntries"]
    detail = f"sent {micro['sent']}, returned {micro['returned']} ({micro['firstDay']} to {micro['lastDay']})"
    yield ("microEntries", "returnRate", micro["returnRate"], detail, micro["lastDay"])
    for method, sheet in report["currentRates"].items():
        yield from _rate_rows("rate60d", method, sheet)
    for sheet in report["ratesByMonth"]:
        yield from _rate_rows("rateMonth", sheet["month"], sheet)
    for alert in report["alerts"]:
        detail = f"returns {alert['returns']} / debits {alert['debits']}; rate {alert['rate']}; "
        detail += f"threshold {alert['threshold']}" + (
            f"; {alert['transactionUuid']}" if alert["transactionUuid"] else ""
        )
        yield ("alert", alert["category"], alert["level"], detail, alert["createdAt"])
    for action in report["actions"]:
        detail = " ".join(filter(None, [action["transactionUuid"], action["detail"]]))
        yield ("action", action["returnCode"] or "", action["action"], detail, action["takenAt"])
    for hold in report["debitHolds"]:
        state = f"lifted {hold['liftedAt']}" if hold["liftedAt"] else "active"
        subject = hold["customerUuid"] or "company"
        yield ("debitHold", subject, state, hold["reason"], hold["createdAt"])
    for review in report["reviews"]:
        yield ("review", review["reviewedBy"] or "", review["reviewedOn"], review["notes"], "")
        for rule in review["rules"]:
            state = "on" if rule["enabled"] else "off"
            yield ("reviewedRule", rule["rule"], state, rule["detail"], review["reviewedOn"])
