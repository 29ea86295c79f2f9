"""What the fraud-monitoring program watches besides return rates (Nacha 2.2.4; the ACH rules): micro-entry volumes
sent and returned (Micro-Entries rule phase 2), WEB debits a company sends without account validation, and the list
of rules in force that the risk report and each yearly review record carry."""

from __future__ import annotations

from typing import Any

from accounts.models import Company, MerchantSettings
from transactions.models import MICRO_ENTRY, NOT_SEEDED, Transaction, TransactionReturn, TransactionType
from transactions.risk.credit_monitoring import credit_rules
from transactions.risk.return_rates import Period

WEB_DEBITS_WITHOUT_VALIDATION = "web_debits_without_validation"


def micro_entry_volumes(*, company: Company, period: Period) -> dict[str, Any]:
    """Micro-entries sent (batched into a file) and returned in the period, by when each happened."""
    start, end = period.bounds()
    sent = Transaction.objects.filter(
        MICRO_ENTRY, company=company, batch__isnull=False, batch__batched_at__gte=start, batch__batched_at__lt=end
    ).count()
    returned = TransactionReturn.objects.filter(
        company=company,
        transaction__account_validation__isnull=False,
        transaction__amount__gt=0,
        returned_at__gte=start,
        returned_at__lt=end,
    ).count()
    return {
        "firstDay": period.first_day.isoformat(),
        "lastDay": period.last_day.isoformat(),
        "sent": sent,
        "returned": returned,
        "returnRate": returned / sent if sent else 0,
    }


def web_debits_without_validation(*, company: Company, period: Period) -> int:
    """WEB debits the company made in the period while its policy did not validate accounts (`off`): each went
    out without the account validation Nacha's WEB debit rule asks for (the merchant must do it another way)."""
    if company.merchant_settings.account_validation != MerchantSettings.AccountValidation.OFF:
        return 0
    start, end = period.bounds()
    return Transaction.objects.filter(
        NOT_SEEDED,
        company=company,
        standard_entry_class_code="WEB",
        type=TransactionType.DEBIT,
        account_validation__isnull=True,
        created_at__gte=start,
        created_at__lt=end,
    ).count()


def flags(*, company: Company, period: Period) -> list[dict[str, Any]]:
    """What an operator should look at: empty when nothing stands out."""
    found = []
    web_debits = web_debits_without_validation(company=company, period=period)
    if web_debits:
        found.append(
            {
                "flag": WEB_DEBITS_WITHOUT_VALIDATION,
                "count": web_debits,
                "detail": f"{web_debits} WEB debits in {period.days} days under account validation policy off",
            }
        )
    return found


def fraud_rules(company: Company) -> list[dict[str, Any]]:
    """The fraud-monitoring rules in force for the company, as the yearly review lists them."""
    validation = {
        "rule": "web_debit_account_validation",
        "holdCode": "VAL",
        "enabled": company.merchant_settings.account_validation != MerchantSettings.AccountValidation.OFF,
        "detail": company.merchant_settings.account_validation,
    }
    return [validation, *credit_rules(company)]
