"""Processing dates: next window, weekend and holiday moves, past dates, same-day, RTP (times frozen by
passing `now` in)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from tests.transactions.conftest import bank_details, put_charge, saved_charge
from transactions.charges.services import ChargeRequest, transaction_charge
from transactions.effective_dates import effective_date_resolve
from transactions.methods import method_kind
from transactions.models import Transaction
from transactions.state import Actor
from vault.errors import ApiError

CUTOFF = time(16, 0)
FRIDAY_MORNING = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)  # 10:00 Eastern
FRIDAY_EVENING = datetime(2026, 11, 20, 22, 0, tzinfo=UTC)  # 17:00 Eastern, past the cut-off
SATURDAY = datetime(2026, 11, 21, 15, 0, tzinfo=UTC)
WEDNESDAY_BEFORE_THANKSGIVING_EVENING = datetime(2026, 11, 25, 22, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("now", "requested", "expected"),
    [
        # A next-day entry settles the banking day after its processing window (CONTRACT 6, 12).
        (FRIDAY_MORNING, None, date(2026, 11, 23)),
        (FRIDAY_EVENING, None, date(2026, 11, 24)),
        (SATURDAY, None, date(2026, 11, 24)),
        (WEDNESDAY_BEFORE_THANKSGIVING_EVENING, None, date(2026, 11, 30)),  # Thursday 26th is a Fed holiday
        (FRIDAY_MORNING, date(2026, 11, 20), date(2026, 11, 23)),  # today only by Same Day ACH
        (FRIDAY_EVENING, date(2026, 11, 20), date(2026, 11, 24)),  # today's window has closed
        (FRIDAY_MORNING, date(2026, 11, 28), date(2026, 11, 30)),  # Saturday -> Monday
        (FRIDAY_MORNING, date(2026, 12, 25), date(2026, 12, 28)),  # Christmas (Friday) -> Monday
        (FRIDAY_MORNING, date(2027, 7, 5), date(2027, 7, 6)),  # 4 July on Sunday closes Monday
        (FRIDAY_MORNING, date(2026, 12, 1), date(2026, 12, 1)),
    ],
)
def test_effective_date_for_ach(now, requested, expected):
    assert effective_date_resolve(requested=requested, now=now, cutoff=CUTOFF, kind=method_kind("ACH")) == expected


@pytest.mark.parametrize(
    ("now", "requested", "expected"),
    [
        (FRIDAY_MORNING, None, date(2026, 11, 20)),  # the window's own day
        (FRIDAY_EVENING, None, date(2026, 11, 23)),
        (WEDNESDAY_BEFORE_THANKSGIVING_EVENING, None, date(2026, 11, 27)),
        (FRIDAY_MORNING, date(2026, 11, 20), date(2026, 11, 20)),
        (FRIDAY_MORNING, date(2026, 11, 28), date(2026, 11, 30)),
    ],
)
def test_effective_date_for_a_same_day_entry(now, requested, expected):
    kind = method_kind("ACH")
    assert effective_date_resolve(requested=requested, now=now, cutoff=CUTOFF, kind=kind, same_day=True) == expected


def test_past_effective_date_is_rejected():
    with pytest.raises(ApiError) as raised:
        effective_date_resolve(requested=date(2026, 11, 19), now=FRIDAY_MORNING, cutoff=CUTOFF, kind=method_kind("ACH"))
    assert raised.value.status == 400


def test_company_cut_off_decides_the_window():
    ten_to_ten_eastern = datetime(2026, 11, 20, 14, 50, tzinfo=UTC)
    kind = method_kind("ACH")
    assert effective_date_resolve(requested=None, now=ten_to_ten_eastern, cutoff=time(10, 0), kind=kind) == date(
        2026, 11, 23
    )
    assert effective_date_resolve(requested=None, now=ten_to_ten_eastern, cutoff=time(9, 0), kind=kind) == date(
        2026, 11, 24
    )


def test_rtp_is_today_even_on_a_weekend():
    assert effective_date_resolve(requested=None, now=SATURDAY, cutoff=CUTOFF, kind=method_kind("RTP")) == date(
        2026, 11, 21
    )
    with pytest.raises(ApiError):
        effective_date_resolve(requested=date(2026, 11, 23), now=SATURDAY, cutoff=CUTOFF, kind=method_kind("RTP"))


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "same_day", "effective"),
    [
        ("ACH", True, "2026-11-20"),
        ("ACH", False, "2026-11-23"),
        ("RCC", True, "2026-11-20"),
        ("RCC", False, "2026-11-23"),
    ],
)
def test_same_day_flag_is_the_request_until_batched(company, method, same_day, effective):
    result = transaction_charge(
        ChargeRequest(
            company=company,
            method=method,
            type="Debit",
            amount=100,
            payment_details=_details(),
            now=FRIDAY_MORNING,
            actor=Actor.command("test"),
            is_same_day=same_day,
        )
    )
    assert (result.record["isSameDay"], result.record["effectiveDate"]) == (same_day, effective)
    assert Transaction.objects.get().is_same_day is same_day


@pytest.mark.django_db
def test_api_past_effective_date_is_400(api_client, customer, saved_method):
    response = put_charge(api_client, saved_charge(customer, saved_method, effectiveDate="2020-01-02"))
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "effectiveDate"
    assert not Transaction.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(("requested", "expected"), [("2030-11-23", "2030-11-25"), ("2030-12-25", "2030-12-26")])
def test_api_weekend_and_holiday_move_to_next_business_day(api_client, customer, saved_method, requested, expected):
    response = put_charge(api_client, saved_charge(customer, saved_method, effectiveDate=requested))
    assert response.status_code == 201
    assert response.json()["data"]["effectiveDate"] == expected


@pytest.mark.django_db
def test_api_omitted_effective_date_is_a_business_day(api_client, customer, saved_method):
    from transactions.calendar import is_business_day

    data = put_charge(api_client, saved_charge(customer, saved_method)).json()["data"]
    assert is_business_day(date.fromisoformat(data["effectiveDate"]))


def _details() -> dict:
    details = bank_details()
    return {
        "name": details["name"],
        "account_type": details["accountType"],
        "account_number": details["accountNumber"],
        "routing_number": details["routingNumber"],
    }
