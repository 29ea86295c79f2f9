"""The payout account on the wire (CONTRACT 18): the routes' answers and the events' data, the account number
masked from its last four digits (never decrypted to be shown)."""

from __future__ import annotations

from datetime import datetime

from payouts.models import PayoutAccount
from payouts.selectors import payout_account_standing
from vault.records import iso_utc, mask, text_or_none


def payout_account_record(account: PayoutAccount, *, at: datetime) -> dict:
    standing = payout_account_standing(account, at=at)
    return {
        "uuid": str(account.uuid),
        "routingNumber": account.routing_number,
        "accountNumber": mask(account.last_four),
        "lastFourDigits": account.last_four,
        "accountType": account.account_type,
        "holderName": account.holder_name,
        "holderType": account.holder_type,
        "status": standing.status,
        "ready": standing.ready,
        "validationStatus": standing.validation_status,
        "coolDownEndsAt": iso_utc(account.cooldown_ends_at),
        "blockedReason": text_or_none(account.blocked_reason),
        "createdAt": iso_utc(account.created_at),
    }
