"""Re-initiation and mandates (CONTRACT 12, 14): for 180 days after an R01/R09 a new debit to the account is 409
reinitiation_requires_retry, unless it names a mandate the payer accepted after the return."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.mandates.conftest import mandate_created
from tests.mandates.test_charges import debit
from tests.transactions.risk.test_retry import returned_debit
from transactions.models import Transaction
from vault.records import iso_utc

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("code", ["R01", "R09"])
def test_a_mandate_accepted_after_the_return_lets_a_new_debit_go(api_client, account, code):
    before = mandate_created(api_client, account, acceptedAt=iso_utc(timezone.now() - timedelta(days=1)))
    returned = returned_debit(account, code, amount=4900)
    after = mandate_created(api_client, account, acceptedAt=iso_utc(timezone.now()))

    plain = debit(api_client, account)
    under_old = debit(api_client, account, mandateUuid=before["mandateUuid"])
    for refused in (plain, under_old):
        assert refused.status_code == 409, refused.content
        assert refused.json()["errors"][0]["code"] == "reinitiation_requires_retry"
        assert refused.json()["data"]["transactionUuid"] == str(returned.uuid)

    made = debit(api_client, account, mandateUuid=after["mandateUuid"])

    assert made.status_code == 201, made.content
    assert Transaction.objects.get(uuid=made.json()["data"]["uuid"]).mandate.uuid.hex == after["mandateUuid"].replace(
        "-", ""
    )
