"""One timestamp form on the wire (vault.records.DATETIME_FORMAT): every timestamp the OpenAPI document describes
for an answer states it, and every timestamp a merchant reads has it, in JSON answers, CSV files, event bodies and
`meta.timestamp`. The clock stands on a whole second, where `isoformat()` would drop the fraction."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime
from typing import Any

import pytest
import time_machine
from django.test import Client

from reporting.registry import FIELDS, FieldType
from tests.transactions.sandbox.conftest import (  # noqa: F401 (fixtures: the sandbox merchant, its files)
    charge,
    file_dirs,
    ok,
    sandbox_client,
    sandbox_company,
    sandbox_key,
    saved_account,
)
from transactions.models import DebitHold, RiskAction, RiskAlert
from vault.records import DATETIME_FORMAT, DATETIME_PATTERN, iso_utc

LOOKS_LIKE_A_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:")
THE_FORM = re.compile(DATETIME_PATTERN)
ON_THE_SECOND = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)  # a Tuesday, an ordinary banking day
TIMESTAMP_NAME = re.compile(r"(At|timestamp|Until|^now)$")


def _timestamps(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [text for value in node.values() for text in _timestamps(value)]
    if isinstance(node, list):
        return [text for value in node for text in _timestamps(value)]
    return [node] if isinstance(node, str) and LOOKS_LIKE_A_TIMESTAMP.match(node) else []


def _csv_timestamps(response) -> list[str]:
    text = b"".join(response.streaming_content) if response.streaming else response.content
    return [cell for row in csv.reader(io.StringIO(text.decode())) for cell in _timestamps(row)]


def test_the_form_has_six_fraction_digits_and_serializers_share_it(settings):
    assert settings.REST_FRAMEWORK["DATETIME_FORMAT"] == DATETIME_FORMAT
    assert iso_utc(ON_THE_SECOND) == "2026-11-24T15:00:00.000000Z"
    assert THE_FORM.match(iso_utc(ON_THE_SECOND))


def test_every_timestamp_an_answer_documents_states_the_one_form(db):
    document = Client().get("/api/schema/?format=json").json()
    answers = [schema for name, schema in document["components"]["schemas"].items() if not name.endswith("Request")]
    answers += [operation.get("responses", {}) for item in document["paths"].values() for operation in item.values()]
    found: list[tuple[str, dict]] = []

    def walk(node: Any, name: str = "") -> None:
        if isinstance(node, dict):
            # A banking day's deadline (returnWindows' administrativeUntil) is a date, as effectiveDate is.
            named_like_one = TIMESTAMP_NAME.search(name) and node.get("format") != "date"
            if node.get("type") == "string" and (node.get("format") == "date-time" or named_like_one):
                found.append((name, node))
            for key, value in node.items():
                walk(value, key)
        elif isinstance(node, list):
            for value in node:
                walk(value, name)

    walk(answers)
    assert len(found) > 40
    wrong = [
        name
        for name, schema in found
        if (schema.get("format"), schema.get("pattern")) != ("date-time", DATETIME_PATTERN)
    ]
    assert wrong == []


@pytest.fixture
def on_the_second():
    with time_machine.travel(ON_THE_SECOND, tick=False):
        yield


@pytest.fixture
def risk_evidence(sandbox_company, on_the_second):  # noqa: F811
    """A notice, the action it took and a lifted debit hold, made on the whole second (the return rate's own
    alerts and their risk.* events come from the charges' returns)."""
    alert = RiskAlert.objects.create(
        company=sandbox_company, category="R01", level=RiskAlert.Level.NOTICE, as_of=ON_THE_SECOND.date()
    )
    RiskAction.objects.create(company=sandbox_company, action="hold_company_debits", alert=alert)
    DebitHold.objects.create(company=sandbox_company, reason="overall", alert=alert, lifted_at=ON_THE_SECOND)


def test_every_timestamp_a_merchant_reads_has_the_one_form(
    on_the_second,
    sandbox_client,  # noqa: F811
    risk_evidence,
    settings,
):
    settings.WEBHOOK_ALLOW_PRIVATE_URLS = True
    seen: list[str] = []

    def read(response, status: int = 200) -> Any:
        data = ok(response, status)
        seen.extend(_timestamps(response.json()))
        return data

    def read_csv(response) -> None:
        assert response.status_code == 200, response
        seen.extend(_csv_timestamps(response))

    endpoint = read(
        sandbox_client.post(
            "/webhooks/endpoints", {"url": "http://127.0.0.1:9/hook", "eventTypes": ["*"]}, format="json"
        ),
        201,
    )
    read(sandbox_client.post(f"/webhooks/endpoints/{endpoint['uuid']}/rotate-secret"))
    read(sandbox_client.get(f"/webhooks/endpoints/{endpoint['uuid']}"))
    read(sandbox_client.get("/webhooks/endpoints"))
    customer_uuid, method_uuid = saved_account(sandbox_client, "123456789")
    returned = charge(sandbox_client, *saved_account(sandbox_client, "00055501", last_name="Returned"))
    settled = charge(sandbox_client, customer_uuid, method_uuid)
    voided = charge(sandbox_client, customer_uuid, method_uuid)
    read(sandbox_client.post(f"/transactions/{voided['uuid']}/void"))
    read(sandbox_client.post("/sandbox/clock/advance", {"days": 3}, format="json"))
    notice = {"code": "C01", "correctedData": {"accountNumber": "987654321"}}
    read(sandbox_client.post(f"/sandbox/transactions/{settled['uuid']}/notice-of-change", notice, format="json"))
    for uuid in (returned["uuid"], settled["uuid"], voided["uuid"]):
        read(sandbox_client.get(f"/transactions/{uuid}"))
        read(sandbox_client.get(f"/transactions/{uuid}/events"))
    read(sandbox_client.get(f"/customers/{customer_uuid}/payment-methods"))
    read(sandbox_client.get("/customers?page=0&pageSize=10"))
    events = read(sandbox_client.get("/events?pageSize=100"))
    assert "risk.threshold_breached" in {event["type"] for event in events}
    for event in events:
        read(sandbox_client.get(f"/events/{event['id']}"))  # also a webhook's body
    columns = "columns=uuid," + ",".join(f.key for f in FIELDS if f.type == FieldType.TIMESTAMP)
    read(sandbox_client.get(f"/reporting/transactions?page=0&pageSize=100&{columns}"))
    read_csv(sandbox_client.get(f"/reporting/transactions/csv?{columns}"))
    export = read(sandbox_client.post(f"/reporting/exports?{columns}"), 202)
    read(sandbox_client.get(f"/reporting/exports/{export['uuid']}"))
    read(sandbox_client.get("/risk/report"))
    read_csv(sandbox_client.get("/risk/report", {"format": "csv"}))

    assert iso_utc(ON_THE_SECOND) in seen  # meta.timestamp, the report's generatedAt, ... on the whole second
    assert len(seen) > 50
    assert [text for text in seen if not THE_FORM.match(text)] == []
