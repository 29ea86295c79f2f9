"""Card masks leave at least six digits hidden (PCI DSS 3.4.1; review L3): first six and last four only for
PANs of 16 digits or more, fewer leading digits for shorter ones."""

from __future__ import annotations

import pytest
from stdnum import luhn

from tests.transactions.conftest import card_details, put_charge
from transactions.models import Transaction

pytestmark = pytest.mark.django_db


def _luhn_valid(prefix: str) -> str:
    return prefix + luhn.calc_check_digit(prefix)


@pytest.mark.parametrize(
    ("pan", "masked", "first_shown"),
    [
        (_luhn_valid("41111111111"), "41******1117", "41"),  # 12 digits
        (_luhn_valid("411111111111"), "411******1119", "411"),  # 13 digits
        (_luhn_valid("37828224631000"), "37828******0005", "37828"),  # 15 digits (Amex)
        ("4111111111111111", "411111******1111", "411111"),
        (_luhn_valid("411111111111111111"), "411111*********1110", "411111"),  # 19 digits
    ],
)
def test_card_mask_keeps_at_least_six_digits_hidden(api_client, pan, masked, first_shown):
    assert masked[-4:] == pan[-4:]
    response = put_charge(
        api_client, {"method": "CRD", "type": "Debit", "amount": 100, "paymentDetails": card_details(cardNumber=pan)}
    )
    assert response.status_code == 201, response.content
    details = response.json()["data"]["paymentDetails"]
    assert details["cardNumber"] == masked
    assert details["panFirstSix"] == first_shown
    assert details["panLastFour"] == pan[-4:]
    assert masked.count("*") >= 6
    txn = Transaction.objects.get()
    assert (txn.card_masked, txn.card_first_six, txn.card_last_four) == (masked, first_shown, pan[-4:])
    report = api_client.get("/reporting/transactions", {"page": 0, "pageSize": 5, "columns": "cardNumber,panFirstSix"})
    row = report.json()["data"][0]
    assert row["cardDetails"] == {"cardNumber": masked, "panFirstSix": first_shown}
