"""Reads of payouts (CONTRACT 18), scoped to one company: the payout account and whether a payout may go to it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import QuerySet

from accounts.models import Company
from payouts.models import PayoutAccount
from transactions.risk.account_validation import AccountState, account_state
from vault.errors import NotFound


def payout_account_history(*, company: Company) -> QuerySet[PayoutAccount]:
    """Every version of the company's payout account, newest first."""
    return PayoutAccount.objects.filter(company=company).order_by("-created_at", "-id")


def payout_account_current(*, company: Company) -> PayoutAccount | None:
    return PayoutAccount.objects.filter(company=company, replaced_at__isnull=True).first()


def payout_account_get(*, company: Company) -> PayoutAccount:
    account = payout_account_current(company=company)
    if account is None:
        raise NotFound("No payout account is set: PUT /settings/payout-account")
    return account


class Readiness:
    """Where a payout account stands, in the order a payout asks: the first that holds is its status."""

    BLOCKED = "blocked"  # a payout to it was returned R02/R03/R04/R16/R20: change it
    VALIDATION_FAILED = "validation_failed"  # its prenote was returned: change it (or PUT it again to prenote again)
    VALIDATING = "validating"  # its prenote is out
    COOLING_DOWN = "cooling_down"  # changed less than 3 banking days ago
    READY = "ready"


@dataclass(frozen=True)
class AccountStanding:
    status: str
    validation_status: str  # AccountState: validated, pending, failed, unvalidated

    @property
    def ready(self) -> bool:
        return self.status == Readiness.READY


def payout_account_standing(account: PayoutAccount, *, at: datetime) -> AccountStanding:
    """Whether a payout may go to the account at `at`: validated (the company's latest finished validation of the
    account passed), past its cool-down and not stopped by a return."""
    validation = account_state(company=account.company, account_hash=account.account_hash)
    if account.blocked_at is not None:
        status = Readiness.BLOCKED
    elif validation in (AccountState.FAILED, AccountState.UNVALIDATED):
        status = Readiness.VALIDATION_FAILED
    elif validation == AccountState.PENDING:
        status = Readiness.VALIDATING
    elif account.cooldown_ends_at is not None and at < account.cooldown_ends_at:
        status = Readiness.COOLING_DOWN
    else:
        status = Readiness.READY
    return AccountStanding(status, validation)
