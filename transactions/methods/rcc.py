"""RCC: a payer-authorised draft taken over the phone. There is no check-image clearing here: it is sent as an
honest ACH TEL entry and follows every TEL rule (debit only, consumer only, CONTRACT 12). Its record keeps
`method: RCC` and shows `standardEntryClassCode: TEL`; it travels and comes back exactly as an ACH entry does."""

from __future__ import annotations

from transactions.methods.base import PaymentMethodKind
from transactions.methods.sec_codes import sec_code_check

SEC_CODE = "TEL"


class Rcc(PaymentMethodKind):
    code = "RCC"
    in_nacha_file = True
    returnable = True
    same_day_ach = True
    sec_codes = (SEC_CODE,)
    file_sec_code = SEC_CODE  # rows stored before the record showed TEL

    def sec_code_resolve(self, requested: str, *, type: str, holder: str | None) -> str:
        sec_code_check(SEC_CODE, type=type, holder=holder, prefix="RCC is sent as an ACH TEL entry: ")
        return SEC_CODE


RCC = Rcc()
