"""RCC: a payer-authorised draft taken over the phone. It is sent as an ACH TEL entry (there is no check-image
clearing here), so it travels and comes back exactly as an ACH entry does."""

from __future__ import annotations

from transactions.methods.base import PaymentMethodKind


class Rcc(PaymentMethodKind):
    code = "RCC"
    in_nacha_file = True
    returnable = True
    # The record names no SEC code; its entry is TEL.
    file_sec_code = "TEL"


RCC = Rcc()
