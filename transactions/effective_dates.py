"""The day an entry settles if it goes out in the next processing window: a charge, a reversal's credit and an
account validation's entries all ask it."""

from __future__ import annotations

from datetime import date, datetime, time

from transactions import calendar
from transactions.methods import PaymentMethodKind
from vault.error_codes import ErrorCode
from vault.errors import ApiError


def effective_date_resolve(
    *, requested: date | None, now: datetime, cutoff: time, kind: PaymentMethodKind, same_day: bool = False
) -> date:
    """The day a charge settles if it goes out in the next processing window (CONTRACT 6, 12): that window's day
    for a Same Day entry or a card, the next banking day after it for any other NACHA entry. A requested day
    that is a weekend or holiday moves to the next Fed business day, one before the earliest moves to it; a
    past date is 400."""
    today = calendar.eastern_now(now).date()
    if requested is not None and requested < today:
        raise ApiError("effectiveDate must not be in the past", field="effectiveDate", code=ErrorCode.PAST_DATE)
    if kind.settles_at_birth:
        if requested not in (None, today):
            raise ApiError("RTP settles immediately: effectiveDate must be today or omitted", field="effectiveDate")
        return today
    earliest = calendar.next_processing_day(now, cutoff)
    if kind.in_nacha_file and not same_day:
        earliest = calendar.next_business_day(earliest, include_today=False)
    if requested is None:
        return earliest
    return max(calendar.next_business_day(requested), earliest)
