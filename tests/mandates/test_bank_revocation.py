"""A return that says the payer never authorized the debit, or withdrew the authorization (R05, R07, R10, R11, R29,
R51), revokes every active mandate of the returned entry's saved method, with the return as the reason (CONTRACT 14);
later debits under it are 409 and its proof packet stays downloadable. The sandbox's simulated return goes through
the same import as a bank's file."""

from __future__ import annotations

import pytest

from events.models import Event
from mandates.models import Mandate
from tests.mandates.conftest import mandate_body
from tests.transactions.sandbox.conftest import (  # noqa: F401 (fixtures)
    advance,
    file_dirs,
    ok,
    sandbox_client,
    sandbox_company,
    sandbox_key,
    saved_account,
)
from transactions.return_codes import RETURN_CODES

pytestmark = pytest.mark.django_db


def _mandated_debit(client, account_number: str) -> tuple[str, str, dict]:
    customer, method = saved_account(client, account_number)
    mandate = ok(client.post(f"/customers/{customer}/mandates", mandate_body(method), format="json"), 201)
    mandate = mandate["mandateUuid"]
    charge = {
        "method": "ACH",
        "type": "Debit",
        "amount": 2500,
        "customerUuid": customer,
        "paymentMethodUuid": method,
        "mandateUuid": mandate,
        "paymentDetails": {
            "name": "x",
            "accountType": "Checking",
            "accountNumber": "1234",
            "routingNumber": "021000021",
        },
    }
    debit = ok(client.put("/transactions", charge, format="json"), 201)
    return mandate, method, debit


@pytest.mark.parametrize("code", ["R05", "R07", "R10", "R11", "R29", "R51"])
def test_an_unauthorized_return_revokes_the_methods_mandates(sandbox_client, code):  # noqa: F811
    mandate, _method, debit = _mandated_debit(sandbox_client, "123456789")
    advance(sandbox_client, 1)

    ok(sandbox_client.post(f"/sandbox/transactions/{debit['uuid']}/return", {"code": code}, format="json"))

    revoked = ok(sandbox_client.get(f"/mandates/{mandate}"))
    assert revoked["status"] == "revoked"
    assert revoked["revokedReason"] == f"return {code}: {RETURN_CODES[code].reason}"[:255]
    assert revoked["retainUntil"] is not None
    assert Event.objects.filter(type="mandate.revoked", object_uuid=mandate).count() == 1
    again = sandbox_client.put(
        "/transactions",
        {
            "method": "ACH",
            "type": "Debit",
            "amount": 100,
            "customerUuid": revoked["customerUuid"],
            "paymentMethodUuid": revoked["paymentMethodUuid"],
            "mandateUuid": mandate,
            "paymentDetails": {
                "name": "x",
                "accountType": "Checking",
                "accountNumber": "1234",
                "routingNumber": "021000021",
            },
        },
        format="json",
    )
    assert again.status_code in (400, 409)  # 409 mandate_not_active, or the method blocked by the same return
    assert sandbox_client.get(f"/mandates/{mandate}/proof").status_code == 200


@pytest.mark.parametrize("code", ["R01", "R02", "R08", "R09"])
def test_other_returns_leave_the_mandate_active(sandbox_client, code):  # noqa: F811
    mandate, _method, debit = _mandated_debit(sandbox_client, "123456789")
    advance(sandbox_client, 1)

    ok(sandbox_client.post(f"/sandbox/transactions/{debit['uuid']}/return", {"code": code}, format="json"))

    assert Mandate.objects.get(uuid=mandate).status == "active"
