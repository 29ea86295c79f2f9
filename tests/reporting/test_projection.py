"""Column projection (SPEC 4.9 rules 1-6, CONTRACT 7)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from reporting.registry import ALWAYS_ON, BY_KEY, DEFAULT_COLUMNS, FIELDS
from tests.reporting.conftest import report

pytestmark = pytest.mark.django_db

FLAT_ALWAYS_ON = [k for k in ALWAYS_ON if BY_KEY[k].group is None]
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z")


def _row(client, **params):
    response = report(client, **params)
    assert response.status_code == 200, response.content
    return response.json()["data"][0]


def _keys(row) -> set[str]:
    """Row keys with nested ones as group.key."""
    out = set()
    for key, value in row.items():
        if isinstance(value, dict):
            out |= {f"{key}.{inner}" for inner in value}
        else:
            out.add(key)
    return out


def test_default_columns_are_default_plus_always_on_without_companions(api_client, build):
    build({"batch__id": None, "settlement__id": None})
    row = _row(api_client)
    assert _keys(row) == set(FLAT_ALWAYS_ON) | {
        "effectiveDate",
        "paymentDetails.name",
        "paymentDetails.accountNumber",
        "batchDetails.batchNumericId",
        "settlementDetails.settlementNumericId",
        "settlementDetails.settlementProcessedAt",
    }
    assert "panFirstSix" not in str(row) and "batchUuid" not in row["batchDetails"]


def test_columns_give_requested_plus_always_on(api_client, build):
    build()
    row = _row(api_client, columns="externalUniqueId")
    assert _keys(row) == set(FLAT_ALWAYS_ON) | {"externalUniqueId", "settlementDetails.settlementProcessedAt"}


@pytest.mark.parametrize(
    ("column", "companion"),
    [("batchNumericId", "batchDetails.batchUuid"), ("accountNumber", "cardDetails.panFirstSix")],
)
def test_companions_come_with_columns(api_client, build, column, companion):
    build({"batch__id": None})
    assert companion in _keys(_row(api_client, columns=column))


@pytest.mark.parametrize("columns", ["nope", "numericId,nope", "AMOUNT", "paymentDetails"])
def test_unknown_column_is_400_invalid_columns(api_client, build, columns):
    build()
    response = report(api_client, columns=columns)
    assert response.status_code == 400
    assert response.json()["message"] == "invalid columns"
    assert response.json()["errors"][0]["field"] == "columns"


def test_unknown_column_names_the_valid_keys_and_the_one_meant(api_client, build):
    build()
    (error,) = report(api_client, columns="transactionUuid,amount,returncode").json()["errors"][:1]
    assert error["message"].startswith(
        "unknown column transactionUuid; did you mean uuid?; the columns are uuid, numericId,"
    )
    assert all(key in error["message"] for key in BY_KEY)
    second = report(api_client, columns="amount,returncode").json()["errors"][0]["message"]
    assert second.startswith("unknown column returncode; did you mean returnCode?; the columns are ")


def test_columns_sent_twice_select_both(api_client, build):
    build()
    row = _row(api_client, columns=["returnCode", "traceNumber"])
    assert {"returnDetails.returnCode", "batchDetails.traceNumber"} <= _keys(row)


def test_the_documented_columns_name_every_key_and_the_always_on_ones(anonymous_client):
    paths = anonymous_client.get("/api/schema/", {"format": "json"}).json()["paths"]
    for path in ("/reporting/transactions", "/reporting/transactions/csv"):
        (columns,) = [p for p in paths[path]["get"]["parameters"] if p["name"] == "columns"]
        assert columns["schema"]["items"]["enum"] == list(BY_KEY) and columns["explode"] is False
        assert ", ".join(ALWAYS_ON) in columns["description"]


def test_filtering_never_adds_a_column(api_client, build):
    build({"return_entry__return_code": "R01", "hold__hold_reason": "x"}, routing_number="021000021")
    row = _row(api_client, **{"returncode": "R01", "routingnumber": "021000021", "holdreason:nn": ""})
    assert "returnDetails" not in row and "holdDetails" not in row
    assert "routingNumber" not in row["paymentDetails"]


def test_settlement_details_always_present_for_settlement_processed_at(api_client, build):
    build()
    assert _row(api_client, columns="amount")["settlementDetails"] == {"settlementProcessedAt": None}


@pytest.mark.parametrize("field", [f for f in FIELDS if f.key and f.group], ids=lambda f: f.key)
def test_each_nested_key_lands_in_its_group_with_only_selected_keys(api_client, build, field):
    build()
    row = _row(api_client, columns=field.key)
    assert field.inner_key in row[field.group]
    expected_inner = {field.inner_key} | {
        BY_KEY[c].inner_key for c in field.companions if BY_KEY[c].group == field.group
    }
    if field.group == "settlementDetails":
        expected_inner.add("settlementProcessedAt")
    assert set(row[field.group]) == expected_inner


@pytest.mark.parametrize("field", [f for f in FIELDS if f.key and not f.group], ids=lambda f: f.key)
def test_each_flat_key_is_flat(api_client, build, field):
    build()
    assert field.key in _row(api_client, columns=field.key)


def test_all_columns_with_values_rendered(api_client, build, company):
    ingestion_uuid = uuid.uuid4()
    txn = build(
        {
            "batch__batched_at": datetime(2026, 1, 3, 4, 5, 6, tzinfo=UTC),
            "settlement__processed_at": datetime(2026, 1, 4, tzinfo=UTC),
            "return_entry__return_code": "R02",
            "late_return_settlement__id": None,
            "change_notice__change_code": "C02",
            "hold__released_at": datetime(2026, 1, 5, tzinfo=UTC),
            "exception__reject_reason": "Invalid account",
            "ingestion_file__uuid": ingestion_uuid,
        },
        account_number="000123456789",
        card_masked="411111******1111",
        card_first_six="411111",
        trace_number="091000010000001",
    )
    row = _row(api_client, columns=",".join(f.key for f in FIELDS if f.key))
    assert row["numericId"] == txn.pk and row["uuid"] == str(txn.uuid)
    assert row["companyUuid"] == str(company.uuid) and row["companyName"] == company.name
    assert row["paymentDetails"]["accountNumber"] == "****6789"
    assert "000123456789" not in str(row)
    assert row["cardDetails"]["cardNumber"] == "411111******1111"
    assert row["batchDetails"]["batchedAt"] == "2026-01-03T04:05:06.000000Z"
    assert row["batchDetails"]["batchNumericId"] == txn.batch_id
    assert row["settlementDetails"]["settlementUuid"] == str(txn.settlement.uuid)
    assert row["returnDetails"]["returnCode"] == "R02"
    assert row["lateReturnSettlementDetails"]["lateReturnSettlementNumericId"] == txn.late_return_settlement_id
    assert row["changeDetails"]["changeCode"] == "C02"
    assert row["holdDetails"]["releasedAt"] == "2026-01-05T00:00:00.000000Z"
    assert row["exceptionDetails"]["rejectReason"] == "Invalid account"
    assert row["metadata"]["ingestionFileUuid"] == str(ingestion_uuid)
    assert TIMESTAMP.fullmatch(row["createdAt"])
    assert row["effectiveDate"] == txn.effective_date.isoformat()
    assert isinstance(row["amount"], int)


def test_timestamps_dates_and_uuids_read_the_same_on_every_database(api_client, build):
    """PostgreSQL renders these columns itself; the text must be what the Python renderer writes elsewhere."""
    created = datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
    txn = build(
        {"batch__batched_at": datetime(2026, 3, 5, 23, 59, 59, 1, tzinfo=UTC)},
        created_at=created,
        sale_at=datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC),
        effective_date=date(2026, 3, 6),
    )
    row = _row(api_client, columns="createdAt,saleAt,effectiveDate,batchedAt,sequenceUuid,reversedAt")
    assert row["createdAt"] == "2026-03-04T05:06:07.890123Z"
    assert row["saleAt"] == "1999-12-31T23:59:59.000000Z"
    assert row["effectiveDate"] == "2026-03-06"
    assert row["batchDetails"]["batchedAt"] == "2026-03-05T23:59:59.000001Z"
    assert row["uuid"] == str(txn.uuid) and row["sequenceUuid"] == str(txn.sequence_uuid)
    assert row["reversedAt"] is None


def test_selected_absent_values_are_null(api_client, build):
    build(account_number=None, account_number_hash="", account_last_four="")
    row = _row(api_client, columns="returnCode,accountNumber,batchUuid,releasedAt,reversedAt")
    assert row["returnDetails"] == {"returnCode": None}
    assert row["paymentDetails"] == {"accountNumber": None}
    assert row["batchDetails"] == {"batchUuid": None}
    assert row["holdDetails"] == {"releasedAt": None}
    assert row["reversedAt"] is None


def test_default_set_matches_registry(api_client, build):
    build()
    keys = _keys(_row(api_client))
    for key in DEFAULT_COLUMNS:
        f = BY_KEY[key]
        assert (f"{f.group}.{f.inner_key}" if f.group else key) in keys


def test_the_developer_guide_names_the_always_on_keys():
    guide = " ".join((Path(__file__).parents[2] / "docs" / "api.md").read_text().split())
    assert ", ".join(ALWAYS_ON) in guide
