"""M9: at most CSV_EXPORTS_PER_COMPANY (default 2) CSV exports of a company stream at once, the next is 429 with
Retry-After; and a slowly read export holds no lock a charge waits on (SQLite included)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.signals import request_finished
from django.db import close_old_connections
from django.utils import timezone
from rest_framework.test import APIClient

from reporting.models import CsvExportLease
from tests import factories
from tests.concurrency import at_once
from tests.transactions.conftest import bank_details
from transactions.models import Transaction

pytestmark = pytest.mark.django_db

CSV = {"format": "csv"}


def _export(client: APIClient):
    return client.get("/reporting/transactions", CSV)


def _close(response) -> None:
    """Closes a streamed response without reading it, as a client hanging up does. Done as the test client does at
    the end of a stream: Django's request_finished handler would otherwise close the test's database connection."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


def test_the_default_is_two_exports_per_company():
    assert settings.CSV_EXPORTS_PER_COMPANY == 2


def test_a_third_concurrent_export_is_429_with_retry_after_until_one_closes(api_client, company):
    factories.TransactionFactory(company=company)
    first, second = _export(api_client), _export(api_client)
    assert (first.status_code, second.status_code) == (200, 200)
    third = _export(api_client)
    assert third.status_code == 429
    assert int(third["Retry-After"]) > 0
    body = third.json()
    assert body["status"] == "error" and body["errors"][0]["code"] == "throttled"
    _close(first)
    fourth = _export(api_client)
    assert fourth.status_code == 200
    assert b"".join(fourth.streaming_content).count(b"\n") == 2  # read to the end: the lease goes with it
    _close(second)
    assert not CsvExportLease.objects.exists()


def test_json_pages_and_other_companies_are_not_limited(api_client, other_api_client, company):
    held = [_export(api_client) for _ in range(2)]
    assert api_client.get("/reporting/transactions", {"page": 0, "pageSize": 5}).status_code == 200
    other = _export(other_api_client)
    assert other.status_code == 200
    for response in [*held, other]:
        _close(response)


def test_the_lease_of_a_worker_that_died_mid_export_lapses(api_client, company):
    _export(api_client), _export(api_client)  # never closed, as if the worker died
    assert _export(api_client).status_code == 429
    CsvExportLease.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert _export(api_client).status_code == 200


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ten_exports_at_once_let_exactly_two_through():
    company = factories.CompanyFactory()
    authorization = factories.issue_api_key(company).authorization

    def export():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=authorization)
        return _export(client)

    responses = at_once(export, 10)
    assert sorted(r.status_code for r in responses) == [200, 200] + [429] * 8
    for response in responses:
        response.close()
    assert not CsvExportLease.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_slowly_read_export_does_not_block_a_charge():
    company = factories.CompanyFactory()
    authorization = factories.issue_api_key(company).authorization
    Transaction.objects.bulk_create(factories.TransactionFactory.build_batch(600, company=company))
    mid_stream, charged = threading.Event(), threading.Event()

    def slow_reader() -> int:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=authorization)
        response = _export(client)
        chunks = iter(response.streaming_content)
        content = next(chunks)
        mid_stream.set()
        charged.wait(timeout=30)  # the client stops reading while the charge is made
        content += b"".join(chunks)
        response.close()
        return content.count(b"\n")

    reader_lines: list[int] = []
    thread = threading.Thread(target=lambda: reader_lines.extend(at_once(slow_reader, 1)))
    thread.start()
    assert mid_stream.wait(timeout=30)
    charger = APIClient()
    charger.credentials(HTTP_AUTHORIZATION=authorization)
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details()}
    response = charger.put("/transactions", body, format="json")
    charged.set()
    thread.join(timeout=60)
    assert response.status_code == 201, response.content
    assert reader_lines == [601]


@pytest.mark.django_db(transaction=True)
def test_an_export_renews_its_lease_while_the_rows_stream(monkeypatch):
    """The renewal (every CSV_EXPORT_RENEW_SECONDS) falls in the middle of the rows; on PostgreSQL the request's
    connection is busy with the COPY then, and a renewal sent there failed the export a minute in."""
    monkeypatch.setattr("reporting.services.CSV_EXPORT_RENEW_SECONDS", 0)
    company = factories.CompanyFactory()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company).authorization)
    Transaction.objects.bulk_create(factories.TransactionFactory.build_batch(600, company=company))
    response = _export(client)
    content = b"".join(response.streaming_content)  # a renewal before every chunk after the first
    response.close()
    assert content.count(b"\n") == 601


def test_the_service_streams_at_most_its_service_wide_cap_of_exports(api_client, company, settings):
    settings.CSV_EXPORTS_SERVICE_WIDE = 2
    factories.TransactionFactory(company=company)
    others = []
    for _ in range(2):
        other = factories.CompanyFactory()
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(other).authorization)
        others.append(client)
    first, second = _export(others[0]), _export(others[1])
    assert (first.status_code, second.status_code) == (200, 200)

    refused = _export(api_client)

    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "service" in refused.json()["message"]
    _close(first)
    assert _export(api_client).status_code == 200
    _close(second)


def test_the_service_wide_cap_is_below_the_default_request_slots():
    from pathlib import Path

    conf: dict = {}
    exec((Path(settings.BASE_DIR) / "gunicorn.conf.py").read_text(), conf)  # noqa: S102 - our own config file
    assert conf["worker_class"] == "vault.gunicorn_workers.ThreadJsonWorker"  # gthread: a slow reader holds a thread
    assert settings.CSV_EXPORTS_SERVICE_WIDE < conf["workers"] * conf["threads"]
