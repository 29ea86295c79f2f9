"""NACHA return reason codes (R01..R85) with their default policy, return-rate category, kind (a return, or a
dishonored or contested dishonored return) and time frame, and notification-of-change codes (C01..C14, and the
refused-NOC codes C61..C69 that are never applied): the one table of each, read by the import and the
return-rate program. Adding a code is one line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import partial


class PolicyAction(str, Enum):
    """What a company's return policy may do when a return of a code is recorded (admin-editable per company)."""

    BLOCK_METHOD = "block_method"  # the saved method cannot be debited again
    DEACTIVATE_CUSTOMER = "deactivate_customer"
    HOLD_CUSTOMER_DEBITS = "hold_customer_debits"  # that customer's new debits are HELD (holdCode RTN)
    NOTIFY = "notify"  # a notice alert for the company's staff


class RateCategory(str, Enum):
    """Nacha's return-rate categories (Article Two 2.17.2); every return of a debit also counts as overall."""

    UNAUTHORIZED = "unauthorized"
    ADMINISTRATIVE = "administrative"
    OVERALL = "overall"


class ReturnKind(str, Enum):
    """What an addenda-99 code is. Only a RETURN changes the entry (status, settlement, rates); a dishonored return
    (R61-R70: the ODFI refusing the RDFI's return) and a contested dishonored return (R71-R77: the RDFI answering
    the dishonor) are recorded beside the return they answer and move no money here."""

    RETURN = "return"
    DISHONORED = "dishonored"
    CONTESTED = "contested"


class TimeFrame(str, Enum):
    """By when the ODFI must receive a return (Nacha 2.12, 3.8): after that it is untimely and the ODFI may
    dishonor it (R68). Counted from the original entry's settlement date."""

    TWO_BANKING_DAYS = "2 banking days"
    SIXTY_DAYS = "60 calendar days"  # unauthorized consumer debits and source-document returns


@dataclass(frozen=True)
class ReturnCode:
    reason: str
    actions: frozenset[PolicyAction] = frozenset()  # the default policy, when the company has no row of its own
    category: RateCategory | None = None  # the rate it counts in besides overall
    kind: ReturnKind = ReturnKind.RETURN
    # None: a return with no fixed window to check (sent at the ODFI's request or agreement, or when the RDFI
    # learns of a death), or a dishonored / contested return (its own window is the ODFI's and RDFI's affair).
    time_frame: TimeFrame | None = TimeFrame.TWO_BANKING_DAYS

    @property
    def is_return(self) -> bool:
        return self.kind == ReturnKind.RETURN


_R = ReturnCode
_LONG, _NO_WINDOW = TimeFrame.SIXTY_DAYS, None

_DISHONORED = partial(ReturnCode, kind=ReturnKind.DISHONORED, time_frame=None)
_CONTESTED = partial(ReturnCode, kind=ReturnKind.CONTESTED, time_frame=None)
_BLOCK = frozenset({PolicyAction.BLOCK_METHOD})
_BLOCK_AND_HOLD = frozenset({PolicyAction.BLOCK_METHOD, PolicyAction.HOLD_CUSTOMER_DEBITS})
_UNAUTH, _ADMIN = RateCategory.UNAUTHORIZED, RateCategory.ADMINISTRATIVE

RETURN_CODES: dict[str, ReturnCode] = {
    "R01": _R("Insufficient Funds"),
    "R02": _R("Account Closed", _BLOCK, _ADMIN),
    "R03": _R("No Account/Unable to Locate Account", _BLOCK, _ADMIN),
    "R04": _R("Invalid Account Number Structure", _BLOCK, _ADMIN),
    "R05": _R(
        "Unauthorized Debit to Consumer Account Using Corporate SEC Code", _BLOCK_AND_HOLD, _UNAUTH, time_frame=_LONG
    ),
    "R06": _R("Returned per ODFI's Request", time_frame=_NO_WINDOW),
    "R07": _R("Authorization Revoked by Customer", _BLOCK_AND_HOLD, _UNAUTH, time_frame=_LONG),
    "R08": _R("Payment Stopped"),
    "R09": _R("Uncollected Funds"),
    "R10": _R(
        "Customer Advises Originator is Not Known to Receiver and/or Is Not Authorized by Receiver to Debit"
        " Receiver's Account",
        _BLOCK_AND_HOLD,
        _UNAUTH,
        time_frame=_LONG,
    ),
    "R11": _R(
        "Customer Advises Entry Not in Accordance with the Terms of the Authorization",
        category=_UNAUTH,
        time_frame=_LONG,
    ),
    "R12": _R("Account Sold to Another DFI"),
    "R13": _R("Invalid ACH Routing Number"),
    "R14": _R("Representative Payee Deceased or Unable to Continue in That Capacity", time_frame=_NO_WINDOW),
    "R15": _R("Beneficiary or Account Holder (Other Than a Representative Payee) Deceased", time_frame=_NO_WINDOW),
    "R16": _R("Account Frozen/Entry Returned per OFAC Instruction", _BLOCK),
    "R17": _R("File Record Edit Criteria/Entry with Invalid Account Number Initiated Under Questionable Circumstances"),
    "R18": _R("Improper Effective Entry Date"),
    "R19": _R("Amount Field Error"),
    "R20": _R("Non-Transaction Account", _BLOCK),
    "R21": _R("Invalid Company Identification"),
    "R22": _R("Invalid Individual ID Number"),
    "R23": _R("Credit Entry Refused by Receiver"),
    "R24": _R("Duplicate Entry"),
    "R25": _R("Addenda Error"),
    "R26": _R("Mandatory Field Error"),
    "R27": _R("Trace Number Error"),
    "R28": _R("Routing Number Check Digit Error"),
    "R29": _R("Corporate Customer Advises Not Authorized", _BLOCK_AND_HOLD, _UNAUTH),
    "R30": _R("RDFI Not Participant in Check Truncation Program"),
    "R31": _R("Permissible Return Entry (CCD and CTX only)", time_frame=_NO_WINDOW),
    "R32": _R("RDFI Non-Settlement"),
    "R33": _R("Return of XCK Entry"),
    "R34": _R("Limited Participation DFI"),
    "R35": _R("Return of Improper Debit Entry"),
    "R36": _R("Return of Improper Credit Entry"),
    "R37": _R("Source Document Presented for Payment", time_frame=_LONG),
    "R38": _R("Stop Payment on Source Document"),
    "R39": _R("Improper Source Document/Source Document Presented for Payment"),
    "R40": _R("Return of ENR Entry by Federal Government Agency"),
    "R41": _R("Invalid Transaction Code"),
    "R42": _R("Routing Number/Check Digit Error"),
    "R43": _R("Invalid DFI Account Number"),
    "R44": _R("Invalid Individual ID Number/Identification Number"),
    "R45": _R("Invalid Individual Name/Company Name"),
    "R46": _R("Invalid Representative Payee Indicator"),
    "R47": _R("Duplicate Enrollment"),
    "R50": _R("State Law Affecting RCK Acceptance"),
    "R51": _R(
        "Item Related to RCK Entry is Ineligible or RCK Entry is Improper", _BLOCK_AND_HOLD, _UNAUTH, time_frame=_LONG
    ),
    "R52": _R("Stop Payment on Item Related to RCK Entry"),
    "R53": _R("Item and RCK Entry Presented for Payment", time_frame=_LONG),
    "R61": _DISHONORED("Misrouted Return"),
    "R62": _DISHONORED("Return of Erroneous or Reversing Debit"),
    "R67": _DISHONORED("Duplicate Return"),
    "R68": _DISHONORED("Untimely Return"),
    "R69": _DISHONORED("Field Error(s)"),
    "R70": _DISHONORED("Permissible Return Entry Not Accepted/Return Not Requested by ODFI"),
    "R71": _CONTESTED("Misrouted Dishonored Return"),
    "R72": _CONTESTED("Untimely Dishonored Return"),
    "R73": _CONTESTED("Timely Original Return"),
    "R74": _CONTESTED("Corrected Return"),
    "R75": _CONTESTED("Return Not a Duplicate"),
    "R76": _CONTESTED("No Errors Found"),
    "R77": _CONTESTED("Non-Acceptance of R62 Dishonored Return"),
    "R80": _R("IAT Entry Coding Error"),
    "R81": _R("Non-Participant in IAT Program"),
    "R82": _R("Invalid Foreign Receiving DFI Identification"),
    "R83": _R("Foreign Receiving DFI Unable to Settle"),
    "R84": _R("Entry Not Processed by Gateway"),
    "R85": _R("Incorrectly Coded Outbound International Payment"),
}

# Codes that answer a return instead of returning an entry (R61-R77): never booked as returns, counted in no rate.
NOT_RETURNS = frozenset(code for code, entry in RETURN_CODES.items() if not entry.is_return)
# What the Nacha rules (2.12.4) let an originator do after a return, whatever the company's own policy: a debit
# returned for want of funds may be re-presented only by a retry; these codes mean the account cannot be debited
# again until the cause is remedied (transactions.risk.account_rules blocks the account).
REINITIATION_CODES = frozenset({"R01", "R09"})
ACCOUNT_BLOCK_CODES = frozenset({"R02", "R03", "R04", "R05", "R07", "R08", "R10", "R16", "R20", "R29"})
# Returns that say the payer never authorized the debit, or withdrew the authorization: they revoke every active
# mandate of the returned entry's saved method (CONTRACT 14).
MANDATE_REVOKING_CODES = frozenset({"R05", "R07", "R10", "R11", "R29", "R51"})


class Corrected(str, Enum):
    """Which saved-method fields a notice of change corrects."""

    ROUTING = "routingNumber"
    ACCOUNT = "accountNumber"
    ACCOUNT_TYPE = "accountType"
    NAME = "name"


@dataclass(frozen=True)
class ChangeCode:
    reason: str
    corrects: tuple[Corrected, ...] = ()


_C = ChangeCode
_ROUTING, _ACCOUNT, _TYPE = Corrected.ROUTING, Corrected.ACCOUNT, Corrected.ACCOUNT_TYPE

CHANGE_CODES: dict[str, ChangeCode] = {
    "C01": _C("Incorrect DFI Account Number", (_ACCOUNT,)),
    "C02": _C("Incorrect Routing Number", (_ROUTING,)),
    "C03": _C("Incorrect Routing Number and Incorrect DFI Account Number", (_ROUTING, _ACCOUNT)),
    "C04": _C("Incorrect Individual Name/Receiving Company Name", (Corrected.NAME,)),
    "C05": _C("Incorrect Transaction Code", (_TYPE,)),
    "C06": _C("Incorrect DFI Account Number and Incorrect Transaction Code", (_ACCOUNT, _TYPE)),
    "C07": _C(
        "Incorrect Routing Number, Incorrect DFI Account Number, and Incorrect Transaction Code",
        (_ROUTING, _ACCOUNT, _TYPE),
    ),
    "C08": _C("Incorrect Receiving DFI Identification (IAT only)"),
    "C09": _C("Incorrect Individual Identification Number"),
    "C13": _C("Addenda Format Error"),
    "C14": _C("Incorrect SEC Code for Outbound International Payment"),
}

# Refused notifications of change (the ODFI refusing an RDFI's NOC): never a correction to apply here.
REFUSED_CHANGE_CODES: dict[str, str] = {
    "C61": "Misrouted Notification of Change",
    "C62": "Incorrect Trace Number",
    "C63": "Incorrect Company Identification Number",
    "C64": "Incorrect Individual Identification Number/Identification Number",
    "C65": "Incorrectly Formatted Corrected Data",
    "C66": "Incorrect Discretionary Data",
    "C67": "Routing Number Not From Original Entry Detail Record",
    "C68": "DFI Account Number Not From Original Entry Detail Record",
    "C69": "Incorrect Transaction Code",
}
