"""Every write of payouts (CONTRACT 18). The payout account: a PUT that changes it keeps the old version (replaced,
for the history), prenotes the new account unless the company validated it already, starts the cool-down and
announces `payout_account.updated`; concurrent PUTs take turns on the company's current row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from accounts.models import Company
from events.outbox import EventDraft, events_record
from events.types import EventType
from payments.services import account_number_validate, routing_number_validate
from payouts.models import PayoutAccount
from payouts.records import payout_account_record
from transactions import calendar
from transactions.models import AccountValidation
from transactions.risk.account_validation import Account, own_account_prenote
from transactions.state import Actor
from vault import crypto

COOLDOWN_BANKING_DAYS = 3
SEC_CODES = {PayoutAccount.HolderType.BUSINESS: "CCD", PayoutAccount.HolderType.CONSUMER: "PPD"}


def cooldown_end(now: datetime) -> datetime:
    """The same time of day 3 banking days after `now` (Eastern): no payout to a changed account before it."""
    eastern = calendar.eastern_now(now)
    day = calendar.add_business_days(eastern.date(), COOLDOWN_BANKING_DAYS)
    return eastern.replace(year=day.year, month=day.month, day=day.day)


def _current_locked(company: Company) -> PayoutAccount | None:
    # The company row first, so that the first PUTs of a company take turns too (no current row to lock yet).
    Company.objects.select_for_update().filter(pk=company.pk).values_list("pk", flat=True).first()
    return PayoutAccount.objects.select_for_update().filter(company=company, replaced_at__isnull=True).first()


@dataclass(frozen=True)
class AccountDetails:
    """A payout account as the merchant sends it."""

    routing_number: str
    account_number: str
    account_type: str
    holder_name: str
    holder_type: str = PayoutAccount.HolderType.BUSINESS

    def described(self) -> dict[str, str]:
        """What a new name on the same account may change."""
        return {"account_type": self.account_type, "holder_name": self.holder_name, "holder_type": self.holder_type}


def _carried(
    current: PayoutAccount | None, *, account_hash: str, prenote: AccountValidation | None, details: AccountDetails, now
) -> dict | None:
    """What the new version takes over from the current one; None when nothing changes."""
    if current is None or current.account_hash != account_hash:
        return {"validation": prenote, "cooldown_ends_at": cooldown_end(now) if current is not None else None}
    if prenote is None and all(getattr(current, name) == value for name, value in details.described().items()):
        return None
    return {
        "validation": prenote or current.validation,
        "cooldown_ends_at": current.cooldown_ends_at,
        "blocked_at": current.blocked_at,
        "blocked_reason": current.blocked_reason,
    }


@transaction.atomic
def payout_account_put(*, company: Company, details: AccountDetails, actor: Actor, now: datetime) -> PayoutAccount:
    """Set the company's payout account. An account the company has not validated is prenoted (CCD, PPD for a
    consumer's; again after a failed prenote); the same details again change nothing else; a new name on the same
    account keeps its cool-down and block; another account, when it replaces one, waits out a cool-down of 3 banking
    days (an account takeover's first move is to change it)."""
    account_number_validate(details.account_number)
    routing_number_validate(details.routing_number)
    account_hash = crypto.account_pair_hash(details.routing_number, details.account_number)
    current = _current_locked(company)
    prenote = own_account_prenote(
        company=company,
        account=Account(company.name, details.account_type, details.account_number, details.routing_number),
        sec_code=SEC_CODES[details.holder_type],
        actor=actor,
        now=now,
    )
    carried = _carried(current, account_hash=account_hash, prenote=prenote, details=details, now=now)
    if carried is None:
        return current
    if current is not None:
        current.replaced_at = now
        current.save(update_fields=["replaced_at"])
    account = PayoutAccount.objects.create(
        company=company,
        routing_number=details.routing_number,
        account_number=details.account_number,
        account_hash=account_hash,
        last_four=details.account_number[-4:],
        created_at=now,
        created_by=actor.id,
        **details.described(),
        **carried,
    )
    draft = EventDraft(
        company_id=company.pk,
        type=EventType.PAYOUT_ACCOUNT_UPDATED,
        object_uuid=account.uuid,
        data=payout_account_record(account, at=now),
    )
    events_record([draft])
    return account
