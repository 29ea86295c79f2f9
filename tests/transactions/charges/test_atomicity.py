"""A charge that fails at its last step leaves no row behind: transaction, hold, settlement, idempotency."""

from __future__ import annotations

import pytest

from idempotency.models import IdempotencyRecord
from tests.transactions.conftest import put_charge, saved_charge
from transactions.charges import services
from transactions.models import Settlement, Transaction, TransactionHold
from transactions.risk import limits as risk


def _nothing_stored() -> bool:
    return not (
        Transaction.objects.exists()
        or TransactionHold.objects.exists()
        or IdempotencyRecord.objects.exists()
        or Settlement.objects.exists()
    )


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["ACH", "RTP"])
def test_failure_after_the_rows_are_written_rolls_everything_back(
    api_client, company, customer, saved_method, monkeypatch, method
):
    company.merchant_settings.hold_over = 10
    company.merchant_settings.save()

    def explode(*args, **kwargs):
        raise RuntimeError("storage failed")

    monkeypatch.setattr(services, "transaction_record", explode)
    amount = 50 if method == "ACH" else 5  # ACH: held (hold row); RTP: settled (settlement row)
    response = put_charge(
        api_client, saved_charge(customer, saved_method, method=method, amount=amount), HTTP_IDEMPOTENCY_KEY="k"
    )
    assert response.status_code == 500
    assert _nothing_stored()


@pytest.mark.postgres
@pytest.mark.django_db
def test_database_constraint_failure_on_the_hold_row_stores_nothing(
    api_client, company, customer, saved_method, monkeypatch
):
    # A hold code wider than its column (8) is refused by PostgreSQL after the transaction row is inserted.
    broken = tuple(risk.RiskRule(rule.status, "X" * 20, rule.trips, rule.reason) for rule in risk.RISK_RULES)
    monkeypatch.setattr(risk, "RISK_RULES", broken)
    company.merchant_settings.hold_over = 10
    company.merchant_settings.save()
    response = put_charge(api_client, saved_charge(customer, saved_method, amount=50), HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 500
    assert _nothing_stored()
