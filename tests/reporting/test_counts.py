"""totalRows from the trigger-kept per-company counter, totalFilteredRows capped at 10,000 unless count=exact, and
`verify_counters` (CONTRACT 7)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db.models import Sum
from rest_framework.test import APIClient

from reporting.models import TransactionCount
from reporting.page import FILTERED_COUNT_LIMIT
from tests import factories
from tests.concurrency import at_once
from tests.reporting.conftest import build_transaction, report
from tests.transactions.conftest import bank_details, put_charge
from transactions.models import Transaction, TransactionEvent

pytestmark = pytest.mark.django_db


def _kept(company) -> int:
    return TransactionCount.objects.filter(company=company).aggregate(n=Sum("row_count"))["n"] or 0


def _pagination(client, **params) -> dict:
    response = report(client, **params)
    assert response.status_code == 200, response.content
    return response.json()["meta"]["pagination"]


def test_total_rows_follows_charges_bulk_inserts_and_deletes_at_once(api_client, company, other_company):
    body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details()}
    assert put_charge(api_client, body).status_code == 201
    Transaction.objects.bulk_create([factories.TransactionFactory.build(company=company, amount=100) for _ in range(5)])
    build_transaction(other_company)
    assert _pagination(api_client)["totalRows"] == 6
    filtered = _pagination(api_client, amount="100")
    assert (filtered["totalFilteredRows"], filtered["totalRows"]) == (5, 6)

    doomed = list(Transaction.objects.filter(company=company, amount=100).values_list("pk", flat=True)[:2])
    TransactionEvent.objects.filter(transaction_id__in=doomed).delete()  # the trail protects its transaction
    Transaction.objects.filter(pk__in=doomed).delete()
    assert _pagination(api_client, amount="100")["totalRows"] == 4
    assert _kept(company) == Transaction.objects.filter(company=company).count() == 4
    assert _kept(other_company) == 1


def test_filtered_total_is_exact_up_to_the_limit_then_a_lower_bound(api_client, company):
    Transaction.objects.bulk_create(
        [factories.TransactionFactory.build(company=company, amount=100) for _ in range(FILTERED_COUNT_LIMIT + 5)]
        + [factories.TransactionFactory.build(company=company, amount=200) for _ in range(3)],
        batch_size=2000,
    )
    total = FILTERED_COUNT_LIMIT + 8
    capped = _pagination(api_client, pageSize=10, amount="100")
    assert capped["totalFilteredRows"] == FILTERED_COUNT_LIMIT
    assert capped["totalFilteredRowsIsLowerBound"] is True
    assert capped["totalRows"] == total
    exact = _pagination(api_client, pageSize=10, amount="100", count="exact")
    assert (exact["totalFilteredRows"], exact["totalFilteredRowsIsLowerBound"]) == (FILTERED_COUNT_LIMIT + 5, False)
    small = _pagination(api_client, pageSize=10, amount="200")
    assert (small["totalFilteredRows"], small["totalFilteredRowsIsLowerBound"]) == (3, False)
    unfiltered = _pagination(api_client, pageSize=10)
    assert (unfiltered["totalFilteredRows"], unfiltered["totalFilteredRowsIsLowerBound"]) == (total, False)
    # A page past the counted 10,000 still has its rows.
    assert len(report(api_client, page=1000, pageSize=10, amount="100").json()["data"]) == 5
    # Also one that starts past the capped count itself (offset 10,002 of 10,005 matches).
    assert len(report(api_client, page=5001, pageSize=2, amount="100").json()["data"]) == 2


@pytest.mark.parametrize("count", ["estimate", "EXACT", "1"])
def test_count_other_than_exact_is_400(api_client, company, count):
    response = report(api_client, count=count)
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "count"


def _verify(*args) -> dict:
    out = io.StringIO()
    call_command("verify_counters", *args, stdout=out)
    return json.loads(out.getvalue())


def test_verify_counters_reports_and_repairs_a_drifted_counter(api_client, company, other_company):
    for _ in range(3):
        build_transaction(company)
    build_transaction(other_company)
    assert _verify() == {"mismatched": [], "dailyVolumeMismatched": [], "repaired": False}

    TransactionCount.objects.filter(company=company).update(row_count=40)
    TransactionCount.objects.filter(company=other_company).delete()
    drifted = sorted(_verify("--dry-run")["mismatched"], key=lambda m: m["counted"])
    assert drifted == sorted(
        [
            {"companyUuid": str(company.uuid), "kept": 40 * TransactionCount.objects.filter(company=company).count(),
             "counted": 3},
            {"companyUuid": str(other_company.uuid), "kept": 0, "counted": 1},
        ],
        key=lambda m: m["counted"],
    )  # fmt: skip
    assert _kept(company) != 3

    assert len(_verify()["mismatched"]) == 2
    assert (_kept(company), _kept(other_company)) == (3, 1)
    assert _pagination(api_client)["totalRows"] == 3
    build_transaction(company)
    assert _verify() == {"mismatched": [], "dailyVolumeMismatched": [], "repaired": False}
    assert _pagination(api_client)["totalRows"] == 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_charges_keep_the_counter_exact_and_spread_over_rows():
    company = factories.CompanyFactory()
    key = factories.issue_api_key(company)
    per_thread = 4

    def charge_several() -> list[int]:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=key.authorization)
        body = {"method": "ACH", "type": "Debit", "amount": 1500, "paymentDetails": bank_details()}
        return [put_charge(client, body).status_code for _ in range(per_thread)]

    statuses = at_once(charge_several, 8)
    assert [s for batch in statuses for s in batch] == [201] * 8 * per_thread
    assert _kept(company) == Transaction.objects.filter(company=company).count() == 8 * per_thread
    # Eight connections add to their own rows (by backend), not all to one.
    assert TransactionCount.objects.filter(company=company).count() > 1
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=key.authorization)
    assert _pagination(client)["totalRows"] == 8 * per_thread
    assert _verify() == {"mismatched": [], "dailyVolumeMismatched": [], "repaired": False}
