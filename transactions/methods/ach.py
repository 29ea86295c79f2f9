"""ACH: a bank account debited or credited through a NACHA file under the SEC code the charge names."""

from __future__ import annotations

from transactions.methods.base import PaymentMethodKind
from transactions.methods.sec_codes import SEC_RULES, default_sec_code, sec_code_check


class Ach(PaymentMethodKind):
    code = "ACH"
    in_nacha_file = True
    returnable = True
    same_day_ach = True
    sec_codes = tuple(SEC_RULES)
    file_sec_code = "WEB"  # rows stored before the SEC code was recorded

    def sec_code_resolve(self, requested: str, *, type: str, holder: str | None) -> str:
        code = requested or default_sec_code(type=type, holder=holder)
        sec_code_check(code, type=type, holder=holder)
        return code


ACH = Ach()
