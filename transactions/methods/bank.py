"""The payer columns of a bank account (ACH, RCC, RTP): a charge, a reversal and an account validation write them
alike."""

from __future__ import annotations

from typing import Any

from vault.crypto import account_number_hash, unpadded_account_hash


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
