"""What every payment method is: a few flags that say how its money moves, and hooks for the moments where
methods differ. One module per method (ach, rcc, rtp, card) subclasses it; transactions.methods is the registry."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from transactions.models import Transaction


class Outcome(str, Enum):
    """What an accepted charge does at once besides waiting (the caller has transactions.state write the move)."""

    SETTLED = "settled"
    DECLINED = "declined"


class PaymentMethodKind:
    code: ClassVar[str]  # the `method` value of the API and the database (transactions.models.Method)
    pays_by_card: ClassVar[bool] = False  # paymentDetails is a card, not a bank account
    in_nacha_file: ClassVar[bool] = False  # `originate` batches it into a NACHA file; it settles with its batch
    returnable: ClassVar[bool] = False  # comes back as an ACH return: retries, return rates, return-rate holds
    settles_at_birth: ClassVar[bool] = False  # settles at creation: no batch, no processing window
    writes_when_accepted: ClassVar[bool] = False  # `accept` writes rows of its own (RTP: its settlement)
    captured_by_settle: ClassVar[bool] = False  # authorised when accepted, captured by the next `settle`
    same_day_ach: ClassVar[bool] = False  # eligible for Same Day ACH
    sec_codes: ClassVar[tuple[str, ...]] = ()  # the SEC codes a request may name; empty: it takes none
    file_sec_code: ClassVar[str] = ""  # the SEC code its entry travels under when the record names none

    @property
    def settles_outside_file(self) -> bool:
        return not self.in_nacha_file

    def sec_code_resolve(self, requested: str, *, type: str, holder: str | None) -> str:
        """The SEC code the record shows and the entry travels under (CONTRACT 12); "" for a method that is not
        an ACH entry (the request could name none)."""
        return ""

    def accept(self, txn: Transaction, now: datetime) -> Outcome | None:
        """A Pending charge that passed risk (at creation, or released or restored later). Sets the fields that
        go with it; idempotent (a charge already settled or authorised is left as it is)."""
        return None

    def reversal_accept(self, credit: Transaction, at: datetime) -> Outcome | None:
        """The offsetting credit of a reversal, before it is stored."""
        return None

    def __repr__(self) -> str:
        return f"<payment method {self.code}>"
