"""Magic account numbers of the sandbox: the first 8 digits of a sandbox entry's account number
say what the bank does with it. One table: adding a family is one line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from transactions.return_codes import CHANGE_CODES, RETURN_CODES, Corrected


class Outcome(str, Enum):
    RETURN = "return"  # returned when `settle` runs, before the entry settles
    NOTICE = "notice"  # a notice of change when `settle` runs; the entry still settles
    LATE_RETURN = "late_return"  # returned LATE_RETURN_AFTER_DAYS calendar days after it settled


@dataclass(frozen=True)
class Family:
    outcome: Outcome
    code_letter: str  # "R" or "C": the two digits after the prefix complete the code


MAGIC_PREFIXES: dict[str, Family] = {
    "000555": Family(Outcome.RETURN, "R"),
    "000666": Family(Outcome.NOTICE, "C"),
    "000777": Family(Outcome.LATE_RETURN, "R"),
}
LATE_RETURN_AFTER_DAYS = 40

# What a sandbox NOC corrects a field to, unless the simulation request says otherwise.
CORRECTED_ACCOUNT_NUMBER = "000123456789"
CORRECTED_ROUTING_NUMBER = "021000021"
CORRECTED_NAME = "CORRECTED NAME"
_OTHER_ACCOUNT_TYPE = {"Checking": "Savings", "Savings": "Checking"}


def is_simulated_return(code: str) -> bool:
    """A code a receiving bank sends back for an entry: any of the table's return codes except the dishonored and
    contested ones (R61-R77), which the originating bank and the receiving bank exchange about a return."""
    return code in RETURN_CODES and not ("R61" <= code <= "R77")


def is_simulated_notice(code: str) -> bool:
    return code in CHANGE_CODES


def outcome_for(account_number: str | None) -> tuple[Outcome, str] | None:
    """(outcome, code) for a magic account number; None for every other number (it settles)."""
    family = MAGIC_PREFIXES.get((account_number or "")[:6])
    if family is None:
        return None
    code = family.code_letter + account_number[6:8]
    known = is_simulated_notice(code) if family.outcome == Outcome.NOTICE else is_simulated_return(code)
    return (family.outcome, code) if known else None


def corrected_values(code: str, *, account_type: str, requested: dict[str, str] | None = None) -> dict[str, str]:
    """The corrected data a NOC of `code` carries: the request's values, else the sandbox's defaults."""
    defaults = {
        Corrected.ACCOUNT.value: CORRECTED_ACCOUNT_NUMBER,
        Corrected.ROUTING.value: CORRECTED_ROUTING_NUMBER,
        Corrected.NAME.value: CORRECTED_NAME,
        Corrected.ACCOUNT_TYPE.value: _OTHER_ACCOUNT_TYPE.get(account_type, "Checking"),
    }
    values = {**defaults, **(requested or {})}
    return {field.value: values[field.value] for field in CHANGE_CODES[code].corrects}
