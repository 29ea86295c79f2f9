"""The whole lifecycle as operators run it, read back through the reporting listing (CONTRACT 7)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from tests import factories
from tests.transactions.ach import nacha_reader
from tests.transactions.ach.conftest import run
from transactions.ach.operator_actions import transaction_acknowledge, transaction_reject, transaction_restore
from transactions.models import Transaction
from transactions.sandbox.bank_files import return_file_for
from transactions.state import Actor, Caller

pytestmark = pytest.mark.django_db

OPERATOR = Actor(Caller.ADMIN, "user:operator")

LIFECYCLE_COLUMNS = (
    "batchUuid,batchNumericId,batchedAt,traceNumber,settlementUuid,settlementNumericId,expectedToSettleAt,"
    "returnCode,returnReason,returnedAt,lateReturnSettlementNumericId,lateReturnSettlementUuid,"
    "lateReturnSettlementProcessedAt,changeCode,changeReason,changedAt,nocReceivedAt,holdCode,holdReason,releasedAt,"
    "rejectReason,rejectedAt,restoredAt,voidedAt,acknowledgedAt,authorizedAt,capturedAt,authResponseCode,"
    "ingestionFileUuid"
)


def _parse(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00"))


def _iso(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _charge(client, body) -> Transaction:
    response = client.put("/transactions", body, format="json")
    assert response.status_code == 201, response.content
    return Transaction.objects.get(uuid=response.json()["data"]["uuid"])


@pytest.mark.usefixtures("ordinary_banking_day")
def test_charge_to_late_return_fills_every_lifecycle_column(api_client, company, tmp_path):
    customer = factories.CustomerFactory(company=company, first_name="Ada", last_name="Lovelace")
    method = factories.PaymentMethodFactory(customer=customer, account_number="000123456789")
    saved = {
        "method": "ACH",
        "type": "Debit",
        "customerUuid": str(customer.uuid),
        "paymentMethodUuid": str(method.uuid),
        # SPEC 4.7 rule 2: required and valid, then replaced by the saved method's details.
        "paymentDetails": {
            "name": "x",
            "accountType": "Checking",
            "accountNumber": "1111",
            "routingNumber": "021000021",
        },
    }
    late = _charge(api_client, {**saved, "amount": 1500})
    corrected = _charge(api_client, {**saved, "amount": 1600})
    held = _charge(api_client, {**saved, "amount": company.merchant_settings.hold_over + 1})
    card = _charge(
        api_client,
        {
            "method": "CRD",
            "type": "Debit",
            "amount": 900,
            "paymentDetails": {
                "name": "Grace Hopper",
                "cardNumber": "4111111111111111",
                "expirationDate": "12/39",
                "cvv": "123",
            },
        },
    )
    handled = _charge(api_client, {**saved, "amount": 1700})
    assert held.status == "HELD" and card.authorized_at is not None

    now = timezone.now()
    assert run("release_holds", "--uuid", str(held.uuid))["released"] == 1
    transaction_reject(txn=handled, reason="merchant asked to check", actor=OPERATOR, at=now)
    transaction_restore(txn=handled, actor=OPERATOR, at=now + timedelta(seconds=1))
    transaction_acknowledge(txn=handled, actor=OPERATOR, at=now + timedelta(seconds=2))

    originated = run("originate", "--at", _iso(now))
    assert originated["transactions"] == 4
    (read,) = [nacha_reader.read(Path(path).read_text()) for path in originated["files"]]
    assert sum(entry.amount for batch in read.batches for entry in batch.entries) == 1500 + 1600 + 1700 + (
        company.merchant_settings.hold_over + 1
    )

    settle_at = Transaction.objects.get(pk=late.pk).expected_to_settle_at + timedelta(seconds=1)
    assert run("settle", "--at", _iso(settle_at))["transactions"] == 5  # four ACH entries and the card capture

    for txn in (late, corrected):
        txn.refresh_from_db()
    return_file = tmp_path / "returns.ach"
    return_file.write_text(
        return_file_for([(late, "R01", {}), (corrected, "C01", {"accountNumber": "5550001111"})], at=settle_at)
    )
    imported = run("import_returns", str(return_file), "--at", _iso(settle_at + timedelta(hours=12)))
    assert (imported["returns"], imported["notices"], imported["unmatched"]) == (1, 1, [])
    assert run("settle", "--at", _iso(settle_at + timedelta(days=1)))["lateReturnSettlements"] == 1

    response = api_client.get(
        "/reporting/transactions",
        {"page": 0, "pageSize": 10, "columns": LIFECYCLE_COLUMNS, "sort": "id", "sortDir": "ASC"},
    )
    assert response.status_code == 200, response.content
    rows = {row["uuid"]: row for row in response.json()["data"]}
    assert len(rows) == 5

    for txn in (late, corrected, held, handled):
        txn.refresh_from_db()
        row = rows[str(txn.uuid)]
        batch = row["batchDetails"]
        assert batch["batchUuid"] == str(txn.batch.uuid) and batch["batchNumericId"] == txn.batch_id
        assert _parse(batch["batchedAt"]) == txn.batch.batched_at
        assert batch["traceNumber"] == txn.trace_number and len(txn.trace_number) == 15
        settlement = row["settlementDetails"]
        assert settlement["settlementUuid"] == str(txn.settlement.uuid)
        assert settlement["settlementNumericId"] == txn.settlement_id
        assert _parse(settlement["settlementProcessedAt"]) == txn.settlement.processed_at
        assert _parse(settlement["expectedToSettleAt"]) == txn.expected_to_settle_at

    late_row = rows[str(late.uuid)]
    assert late_row["status"] == "Returned"
    assert late_row["lateReturnedAt"] is not None
    assert late_row["returnDetails"]["returnCode"] == "R01"
    assert late_row["returnDetails"]["returnReason"] == "Insufficient Funds"
    assert _parse(late_row["returnDetails"]["returnedAt"]) == settle_at + timedelta(hours=12)
    late_settlement = late_row["lateReturnSettlementDetails"]
    assert late_settlement["lateReturnSettlementUuid"] == str(late.late_return_settlement.uuid)
    assert str(late_settlement["lateReturnSettlementNumericId"]) == str(late.late_return_settlement_id)
    assert late_settlement["lateReturnSettlementProcessedAt"] is not None
    assert late_row["metadata"]["ingestionFileUuid"] == imported["ingestionFileUuid"]

    change = rows[str(corrected.uuid)]["changeDetails"]
    assert change["changeCode"] == "C01" and change["changeReason"] == "Incorrect DFI Account Number"
    assert change["changedAt"] is not None and change["nocReceivedAt"] is not None
    assert rows[str(corrected.uuid)]["returnDetails"]["returnCode"] is None

    hold = rows[str(held.uuid)]["holdDetails"]
    assert hold["holdCode"] == "AMT" and hold["holdReason"] and hold["releasedAt"] is not None

    exception = rows[str(handled.uuid)]["exceptionDetails"]
    assert exception["rejectReason"] == "merchant asked to check"
    assert all(exception[key] is not None for key in ("rejectedAt", "restoredAt", "acknowledgedAt"))
    assert exception["voidedAt"] is None

    card_row = rows[str(card.uuid)]
    assert card_row["status"] == "Settled"
    assert card_row["cardDetails"]["authorizedAt"] is not None
    assert card_row["cardDetails"]["capturedAt"] is not None
    assert card_row["settlementDetails"]["settlementNumericId"] is not None
    assert card_row["batchDetails"]["traceNumber"] in (None, "")

    method.refresh_from_db()
    assert method.account_number == "5550001111"
