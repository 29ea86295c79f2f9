"""What the retry and finality tests share: a charge body on a saved method."""

from __future__ import annotations


def saved_charge_body(saved, /, **extra) -> dict:
    """PUT /transactions on a saved method (its stored details replace paymentDetails)."""
    return {
        "method": "ACH",
        "type": "Debit",
        "amount": 2500,
        "customerUuid": str(saved.customer.uuid),
        "paymentMethodUuid": str(saved.uuid),
        "paymentDetails": {
            "name": "x",
            "accountType": "Checking",
            "accountNumber": "1111",
            "routingNumber": "021000021",
        },
        **extra,
    }
