"""GET /risk/return-rates against a fixture computed by hand (CONTRACT 10), by both Nacha methods, per SEC code,
per calendar month, with the Eastern day boundaries at both ends of the window."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime

import pytest
from rest_framework.test import APIClient

from tests import factories
from tests.accounts.conftest import bearer_client
from transactions.models import Batch, OriginationFile, TransactionReturn
from transactions.return_codes import RETURN_CODES

pytestmark = pytest.mark.django_db

URL = "/risk/return-rates"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def originated_file(company, batched_at: str, entries: dict[tuple[str, str, str], int], modifier: str):
    """A NACHA file with one batch per (method, SEC code, type) and `count` entries each, its counts as `originate`
    writes them (the rates read a batch's debit count); returns the entries."""
    when = at(batched_at)
    origination_file = OriginationFile.objects.create(window_at=when, file_id_modifier=modifier, path="x")
    made = {}
    for (method, sec, kind), count in entries.items():
        batch = Batch.objects.create(
            company=company,
            origination_file=origination_file,
            standard_entry_class_code=sec or "TEL",
            effective_date=when.date(),
            batched_at=when,
            entry_count=count,
            debit_count=count if kind == "Debit" else 0,
        )
        made[(method, sec, kind)] = [
            factories.TransactionFactory(
                company=company,
                method=method,
                type=kind,
                standard_entry_class_code=sec,
                status="Processing",
                batch=batch,
                effective_date=when.date(),
            )
            for _ in range(count)
        ]
    return made


def returned(txn, code: str, received: str) -> None:
    TransactionReturn.objects.create(
        company=txn.company,
        transaction=txn,
        return_code=code,
        return_reason=RETURN_CODES[code].reason,
        returned_at=at(received),
    )
    txn.status = "Returned"
    txn.save(update_fields=["status"])


@pytest.fixture
def history(company, other_company):
    """Window as of 2026-11-30: 2026-10-02 .. 2026-11-30, US Eastern days.

    F1 batched 2026-10-02T03:30Z (Oct 1, 23:30 EDT: before the window): 10 WEB debits; one came back R10 on
    Oct 5 (a late return, inside the window), one R01 on Sep 25 (outside).
    F2 batched 2026-10-02T04:30Z (Oct 2, 00:30 EDT: first day of the window): 20 WEB, 5 PPD, 2 RCC (no SEC code:
    TEL) debits and 3 WEB credits; R02 and R01 (WEB), R05 (PPD), R29 (RCC, Nov 1) and R01 on a credit.
    F3 batched 2026-11-25: 15 WEB debits; R04 at 2026-12-01T04:30Z (Nov 30, 23:30 EST: last day) counts, R03 at
    2026-12-01T05:30Z (Dec 1, 00:30 EST) does not. Everything else has no return yet.
    The other company's debits and returns in the window never count."""
    f1 = originated_file(company, "2026-10-02T03:30:00", {("ACH", "WEB", "Debit"): 10}, "A")
    f2 = originated_file(
        company,
        "2026-10-02T04:30:00",
        {
            ("ACH", "WEB", "Debit"): 20,
            ("ACH", "PPD", "Debit"): 5,
            ("RCC", "", "Debit"): 2,
            ("ACH", "WEB", "Credit"): 3,
        },
        "B",
    )
    f3 = originated_file(company, "2026-11-25T15:00:00", {("ACH", "WEB", "Debit"): 15}, "C")
    returned(f1[("ACH", "WEB", "Debit")][0], "R10", "2026-10-05T14:00:00")
    returned(f1[("ACH", "WEB", "Debit")][1], "R01", "2026-09-25T14:00:00")
    returned(f2[("ACH", "WEB", "Debit")][0], "R02", "2026-10-12T14:00:00")
    returned(f2[("ACH", "WEB", "Debit")][1], "R01", "2026-10-13T14:00:00")
    returned(f2[("ACH", "PPD", "Debit")][0], "R05", "2026-10-14T14:00:00")
    returned(f2[("RCC", "", "Debit")][0], "R29", "2026-11-01T14:00:00")
    returned(f2[("ACH", "WEB", "Credit")][0], "R01", "2026-10-14T14:00:00")
    returned(f3[("ACH", "WEB", "Debit")][0], "R04", "2026-12-01T04:30:00")
    returned(f3[("ACH", "WEB", "Debit")][1], "R03", "2026-12-01T05:30:00")
    theirs = originated_file(other_company, "2026-10-20T15:00:00", {("ACH", "WEB", "Debit"): 4}, "D")
    returned(theirs[("ACH", "WEB", "Debit")][0], "R10", "2026-10-22T14:00:00")
    # Not originated yet (no batch): never a debit of any period.
    factories.TransactionFactory(company=company, status="Pending")


def rates(returns: dict[str, int], debits: int) -> dict:
    thresholds = {"unauthorized": 0.005, "administrative": 0.03, "overall": 0.15}
    return {
        category: {
            "returns": returns[category],
            "rate": returns[category] / debits if debits else 0,
            "threshold": limit,
        }
        for category, limit in thresholds.items()
    }


def sheet(days: int, as_of: str, debits: int, returns: dict, by_sec: dict[str, tuple[int, dict]]) -> dict:
    return {
        "windowDays": days,
        "asOf": as_of,
        "debits": debits,
        **rates(returns, debits),
        "bySecCode": {sec: {"debits": count, **rates(figures, count)} for sec, (count, figures) in by_sec.items()},
    }


def counts(unauthorized: int, administrative: int, overall: int) -> dict[str, int]:
    return {"unauthorized": unauthorized, "administrative": administrative, "overall": overall}


# Debits originated Oct 2 .. Nov 30: F2 (27) + F3 (15). Returns received then: R10 R02 R01 R05 R29 R04. Method 2
# counts the debits of the returned entries' files instead: their entries went out in F1, F2 and F3, 10 + 27 + 15
# debits; WEB's were in all three (10 + 20 + 15), PPD's and TEL's only in F2.
@pytest.mark.parametrize(
    ("query", "debits", "web_debits"),
    [({}, 42, 35), ({"method": "files"}, 52, 45)],
    ids=["method_1_by_hand", "method_2_counts_the_debits_of_the_returned_entries_files"],
)
def test_rolling_60_days(api_client, history, query, debits, web_debits):
    response = api_client.get(URL, {"asOf": "2026-11-30", **query})

    assert response.status_code == 200, response.content
    assert response.json()["data"] == sheet(
        60,
        "2026-11-30",
        debits,
        counts(3, 2, 6),
        {
            "PPD": (5, counts(1, 0, 1)),
            "TEL": (2, counts(1, 0, 1)),
            "WEB": (web_debits, counts(1, 2, 4)),
        },
    )


def test_calendar_months(api_client, history):
    october = api_client.get(URL, {"month": "2026-10"}).json()["data"]
    november = api_client.get(URL, {"month": "2026-11"}).json()["data"]

    # October (Eastern): F1 (Oct 1, 23:30 EDT) and F2 went out; R10, R02, R01, R05 came back.
    assert october == sheet(
        31,
        "2026-10-31",
        37,
        counts(2, 1, 4),
        {"PPD": (5, counts(1, 0, 1)), "TEL": (2, counts(0, 0, 0)), "WEB": (30, counts(1, 1, 3))},
    )
    # November: F3 went out; R29 (Nov 1) and R04 (Nov 30, 23:30 EST) came back. No TEL debit went out in
    # November, so its rate is 0 although a TEL return came back.
    assert november == sheet(
        30,
        "2026-11-30",
        15,
        counts(1, 1, 2),
        {"TEL": (0, counts(1, 0, 1)), "WEB": (15, counts(0, 1, 1))},
    )


def test_a_window_with_no_debits_has_rates_of_zero(api_client, history):
    response = api_client.get(URL, {"asOf": "2026-06-30"})

    assert response.json()["data"] == sheet(60, "2026-06-30", 0, counts(0, 0, 0), {})


def test_csv_has_a_row_per_scope_and_category(api_client, history):
    response = api_client.get(URL, {"asOf": "2026-11-30", "format": "csv"})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 4 * 3
    overall = next(row for row in rows if row["secCode"] == "all" and row["category"] == "overall")
    assert overall == {
        "method": "period",
        "firstDay": "2026-10-02",
        "lastDay": "2026-11-30",
        "secCode": "all",
        "category": "overall",
        "returns": "6",
        "debits": "42",
        "rate": str(6 / 42),
        "threshold": "0.15",
    }


def test_default_window_ends_today(api_client, company):
    data = api_client.get(URL).json()["data"]
    assert data["windowDays"] == 60
    assert date.fromisoformat(data["asOf"]) >= date(2026, 11, 1)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"asOf": "2026-13-01"}, "asOf"),
        ({"asOf": "yesterday"}, "asOf"),
        ({"asOf": "9999-12-31"}, "asOf"),
        ({"asOf": "0001-01-01"}, "asOf"),
        ({"month": "0000-01"}, "month"),
        ({"month": "2026-1"}, "month"),
        ({"month": "2026-10", "asOf": "2026-10-01"}, "month"),
        ({"method": "3"}, "method"),
        ({"window": "90"}, "window"),
        ({"format": "xml"}, "format"),
    ],
)
def test_bad_query_is_400_naming_the_parameter(api_client, query, field):
    response = api_client.get(URL, query)

    assert response.status_code == 400
    body = response.json()
    assert body["status"] == "error"
    assert body["errors"][0]["field"] == field


def test_support_role_may_not_view_risk_but_admin_may(company):
    support, admin = factories.UserFactory(), factories.UserFactory()
    factories.membership(support, company, "support")
    factories.membership(admin, company, "admin")

    denied = bearer_client(support).get(URL, {"entityUuid": str(company.uuid)})
    allowed = bearer_client(admin).get(URL, {"entityUuid": str(company.uuid)})

    assert denied.status_code == 403
    assert allowed.status_code == 200


def test_an_api_key_scoped_without_view_risk_is_403(company):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=factories.issue_api_key(company, actions=["ViewReports"]).authorization)

    assert client.get(URL).status_code == 403


def test_anonymous_is_401(anonymous_client):
    assert anonymous_client.get(URL).status_code == 401
