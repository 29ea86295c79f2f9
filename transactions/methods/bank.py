"""The payer columns of a bank account (ACH, RCC, RTP): a charge, a reversal and an account validation write them
alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vault.crypto import account_number_hash, unpadded_account_hash

if TYPE_CHECKING:
    from payments.models import PaymentMethod


def bank_fields(*, name: str, account_type: str, account_number: str, routing_number: str) -> dict[str, Any]:
    return {
        "name": name,
        "account_type": account_type,
        "account_number": account_number,
        "account_number_hash": account_number_hash(account_number),
        "unpadded_account_hash": unpadded_account_hash(account_number),
        "account_last_four": account_number[-4:],
        "routing_number": routing_number,
    }


def saved_bank_fields(*, name: str, saved: PaymentMethod) -> dict[str, Any]:
    """bank_fields of a saved method's account from what the method stores: its hashes and last four are the ones
    bank_fields computes from its number (written together, payments.services), and a charge of a saved method
    need not compute a keyed hash again."""
    return {
        "name": name,
        "account_type": saved.account_type,
        "account_number": saved.account_number,
        "account_number_hash": saved.account_number_hash,
        "unpadded_account_hash": saved.unpadded_account_hash,
        "account_last_four": saved.last_four,
        "routing_number": saved.routing_number,
    }
