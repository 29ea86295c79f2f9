"""ACH: a bank account debited or credited through a NACHA file under the SEC code the charge names."""

from __future__ import annotations

from transactions.methods.base import PaymentMethodKind


class Ach(PaymentMethodKind):
    code = "ACH"
    in_nacha_file = True
    returnable = True
    same_day_ach = True
    sec_codes = ("WEB", "PPD", "CCD", "TEL")
    default_sec_code = "WEB"
    file_sec_code = "WEB"


ACH = Ach()
