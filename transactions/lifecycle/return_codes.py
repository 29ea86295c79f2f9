"""NACHA return reason codes (R01..R85) with their default policy and return-rate category, and
notification-of-change codes (C01..C14): the one table of each, read by the import and the return-rate
program. Adding a code is one line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


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


@dataclass(frozen=True)
class ReturnCode:
    reason: str
    actions: frozenset[PolicyAction] = frozenset()  # the default policy, when the company has no row of its own
    category: RateCategory | None = None  # the rate it counts in besides overall


_R = ReturnCode
_BLOCK = frozenset({PolicyAction.BLOCK_METHOD})
_BLOCK_AND_HOLD = frozenset({PolicyAction.BLOCK_METHOD, PolicyAction.HOLD_CUSTOMER_DEBITS})
_UNAUTH, _ADMIN = RateCategory.UNAUTHORIZED, RateCategory.ADMINISTRATIVE

RETURN_CODES: dict[str, ReturnCode] = {
    "R01": _R("Insufficient Funds"),
    "R02": _R("Account Closed", _BLOCK, _ADMIN),
    "R03": _R("No Account/Unable to Locate Account", _BLOCK, _ADMIN),
    "R04": _R("Invalid Account Number Structure", _BLOCK, _ADMIN),
    "R05": _R("Unauthorized Debit to Consumer Account Using Corporate SEC Code", _BLOCK_AND_HOLD, _UNAUTH),
    "R06": _R("Returned per ODFI's Request"),
    "R07": _R("Authorization Revoked by Customer", _BLOCK_AND_HOLD, _UNAUTH),
    "R08": _R("Payment Stopped"),
    "R09": _R("Uncollected Funds"),
    "R10": _R(
        "Customer Advises Originator is Not Known to Receiver and/or Is Not Authorized by Receiver to Debit"
        " Receiver's Account",
        _BLOCK_AND_HOLD,
        _UNAUTH,
    ),
    "R11": _R("Customer Advises Entry Not in Accordance with the Terms of the Authorization", category=_UNAUTH),
    "R12": _R("Account Sold to Another DFI"),
    "R13": _R("Invalid ACH Routing Number"),
    "R14": _R("Representative Payee Deceased or Unable to Continue in That Capacity"),
    "R15": _R("Beneficiary or Account Holder (Other Than a Representative Payee) Deceased"),
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
    "R31": _R("Permissible Return Entry (CCD and CTX only)"),
    "R32": _R("RDFI Non-Settlement"),
    "R33": _R("Return of XCK Entry"),
    "R34": _R("Limited Participation DFI"),
    "R35": _R("Return of Improper Debit Entry"),
    "R36": _R("Return of Improper Credit Entry"),
    "R37": _R("Source Document Presented for Payment"),
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
    "R51": _R("Item Related to RCK Entry is Ineligible or RCK Entry is Improper", _BLOCK_AND_HOLD, _UNAUTH),
    "R52": _R("Stop Payment on Item Related to RCK Entry"),
    "R53": _R("Item and RCK Entry Presented for Payment"),
    "R61": _R("Misrouted Return"),
    "R62": _R("Return of Erroneous or Reversing Debit"),
    "R67": _R("Duplicate Return"),
    "R68": _R("Untimely Return"),
    "R69": _R("Field Error(s)"),
    "R70": _R("Permissible Return Entry Not Accepted/Return Not Requested by ODFI"),
    "R71": _R("Misrouted Dishonored Return"),
    "R72": _R("Untimely Dishonored Return"),
    "R73": _R("Timely Original Return"),
    "R74": _R("Corrected Return"),
    "R75": _R("Return Not a Duplicate"),
    "R76": _R("No Errors Found"),
    "R77": _R("Non-Acceptance of R62 Dishonored Return"),
    "R80": _R("IAT Entry Coding Error"),
    "R81": _R("Non-Participant in IAT Program"),
    "R82": _R("Invalid Foreign Receiving DFI Identification"),
    "R83": _R("Foreign Receiving DFI Unable to Settle"),
    "R84": _R("Entry Not Processed by Gateway"),
    "R85": _R("Incorrectly Coded Outbound International Payment"),
}


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
